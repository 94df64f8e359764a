import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bufferIo } from '../test-utils/buffer-io.js'
import { initializeRequest } from '../test-utils/initialize-request.js'
import {
  createMcpWorkspace,
  filesystemPolicy,
  filesystemServerScript,
  type McpTestWorkspace,
} from '../test-utils/workspace.js'
import { runPlanMcp } from './run-plan-mcp.js'

const TIMEOUT = 120_000

interface Answer {
  readonly result?: { readonly isError?: boolean; readonly content?: { text?: string }[] }
}

describe('plan-mcp in a long session', () => {
  let workspace: McpTestWorkspace

  beforeAll(async () => {
    workspace = await createMcpWorkspace()
  })

  afterAll(async () => {
    await workspace?.remove()
  })

  /** A plan-mcp session over stdio whose policy has `budgets`; `call` sends one read, answered. */
  async function session(budgets: Record<string, number>) {
    const policyFile = join(workspace.base, `denials-${Object.keys(budgets).join('-')}.json`)
    await writeFile(policyFile, JSON.stringify({ ...filesystemPolicy(workspace.root), budgets }))
    const io = bufferIo(workspace.base)
    const argv = ['--policy', policyFile, '--', process.execPath, filesystemServerScript]
    const running = runPlanMcp([...argv, workspace.root], io)
    const stdin = io.stdin as PassThrough
    const answers = () =>
      io
        .out()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Answer)
    stdin.write(`${JSON.stringify(initializeRequest(0))}\n`)
    await expect.poll(() => answers().length, { timeout: TIMEOUT }).toBe(1)
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
    let id = 0
    const call = async (file: string): Promise<string> => {
      id += 1
      const path = join(workspace.root, file)
      const request = { name: 'read_text_file', arguments: { path } }
      stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: request })}\n`,
      )
      await expect.poll(() => answers().length, { timeout: TIMEOUT }).toBe(id + 1)
      const answer = answers()[id]
      const text = answer?.result?.content?.[0]?.text ?? ''
      return answer?.result?.isError === true
        ? (/budget_exhausted/.exec(text)?.[0] ?? 'denied')
        : text
    }
    const end = async () => {
      stdin.end()
      return running
    }
    return { call, end, out: io.out }
  }

  it(
    'should refuse calls past maxDenials only until the window ends, then serve again',
    async () => {
      const { call, end } = await session({ maxDenials: 2, denialWindowSeconds: 1 })
      // Three requests the policy refuses (.env is denied): one more than maxDenials.
      expect([await call('.env'), await call('.env'), await call('.env')]).toEqual([
        'denied',
        'denied',
        'budget_exhausted',
      ])
      expect(await call('README.md')).toBe('budget_exhausted')
      // The next window starts afresh: the same session answers the allowed read again.
      await expect
        .poll(() => call('README.md'), { timeout: TIMEOUT, interval: 250 })
        .toContain('Hello from the workspace')
      expect(await call('.env')).toBe('denied')
      expect(await end()).toBe(0)
    },
    TIMEOUT,
  )

  it(
    'should count denials per window of 600 s when the policy names no window',
    async () => {
      const { call, end, out } = await session({ maxDenials: 2 })
      for (let index = 0; index < 3; index += 1) await call('.env')
      expect(await call('README.md')).toBe('budget_exhausted')
      expect(out()).toContain('in this window of 600 s (at most 2)')
      expect(await end()).toBe(0)
    },
    TIMEOUT,
  )
})
