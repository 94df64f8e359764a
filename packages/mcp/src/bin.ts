#!/usr/bin/env node
import { runPlanMcp } from './cli/run-plan-mcp.js'

const stop = new AbortController()
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort())

process.exitCode = await runPlanMcp(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
  signal: stop.signal,
})
