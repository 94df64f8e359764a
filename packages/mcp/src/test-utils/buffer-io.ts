import { PassThrough } from 'node:stream'
import type { PlanMcpIo } from '../cli/plan-mcp-io.js'

/** An io whose output is kept in strings. */
export function bufferIo(cwd: string): PlanMcpIo & { out: () => string; err: () => string } {
  let out = ''
  let err = ''
  const stdout = new PassThrough()
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  return {
    stdin: new PassThrough(),
    stdout,
    stderr: {
      write: (text: string) => {
        err += text
      },
    },
    cwd,
    env: process.env,
    out: () => out,
    err: () => err,
  }
}
