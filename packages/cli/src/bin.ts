#!/usr/bin/env node
console.log('plan')
