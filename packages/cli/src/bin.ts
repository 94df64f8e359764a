#!/usr/bin/env node
import { nodeIo } from './node-io.js'
import { runCli } from './run-cli.js'

process.exitCode = await runCli(process.argv.slice(2), nodeIo())
