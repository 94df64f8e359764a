#!/usr/bin/env node
import { runPlanMcp } from './cli/run-plan-mcp.js'

process.exitCode = await runPlanMcp(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
})
