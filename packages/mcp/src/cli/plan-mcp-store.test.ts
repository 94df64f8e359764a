import { randomUUID } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { PassThrough } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bufferIo } from '../test-utils/buffer-io.js'
import { initializeRequest } from '../test-utils/initialize-request.js'
import { postgresTestUrl } from '../test-utils/postgres-url.js'
import {
  createMcpWorkspace,
  filesystemPolicy,
  filesystemServerScript,
  type McpTestWorkspace,
} from '../test-utils/workspace.js'
import { runPlanMcp } from './run-plan-mcp.js'

const TIMEOUT = 120_000
const url = postgresTestUrl()

interface Answer {
  readonly id?: unknown
  readonly result?: { readonly isError?: boolean; readonly content?: { text?: string }[] }
}

describe.skipIf(url === undefined)('plan-mcp --store', () => {
  let workspace: McpTestWorkspace
  let policyFile: string
  let storeUrl: string

  beforeAll(async () => {
    workspace = await createMcpWorkspace()
    policyFile = join(workspace.base, 'store-policy.json')
    const policy = {
      ...filesystemPolicy(workspace.root, { maxCalls: 2 }),
      budgets: {
        maxCalls: 2,
        shared: { reads: { per: 'user', tools: ['read_text_file'], maxCalls: 3 } },
      },
    }
    await writeFile(policyFile, JSON.stringify(policy))
    // The tables are shared with other tests: run ids and user keys are this test's own.
    storeUrl = url as string
  })

  afterAll(async () => {
    await workspace?.remove()
  })

  /** One plan-mcp session: `calls` reads of README.md, one after another; their answers. */
  async function session(flags: readonly string[], calls: number): Promise<Answer[]> {
    const io = bufferIo(workspace.base)
    const argv = ['--policy', policyFile, '--store', storeUrl, ...flags, '--']
    const running = runPlanMcp(
      [...argv, process.execPath, filesystemServerScript, workspace.root],
      io,
    )
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
    for (let id = 1; id <= calls; id += 1) {
      const call = {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'read_text_file', arguments: { path: join(workspace.root, 'README.md') } },
      }
      stdin.write(`${JSON.stringify(call)}\n`)
      await expect.poll(() => answers().length, { timeout: TIMEOUT }).toBe(id + 1)
    }
    stdin.end()
    expect(await running).toBe(0)
    return answers().slice(1)
  }

  const allowed = (answer: Answer) => answer.result?.isError !== true
  const code = (answer: Answer) =>
    /budget_exhausted|store_failed/.exec(answer.result?.content?.[0]?.text ?? '')?.[0]

  it(
    'should keep a run’s budget across a restart with the same --run-id',
    async () => {
      const runId = randomUUID()
      const user = `user=${randomUUID()}`
      const first = await session(['--run-id', runId, '--key', user], 2)
      expect(first.map(allowed)).toEqual([true, true])
      // A new process resumes the run: maxCalls 2 is used up.
      const second = await session(['--run-id', runId, '--key', user], 1)
      expect(second.map(code)).toEqual(['budget_exhausted'])
    },
    TIMEOUT,
  )

  it(
    'should share a shared budget between plan-mcp processes of one user',
    async () => {
      // A user of its own: the tables outlive the test.
      const user = `user=${randomUUID()}`
      const [one, two] = await Promise.all([
        session(['--key', user], 2),
        session(['--key', user], 2),
      ])
      const answers = [...(one ?? []), ...(two ?? [])]
      expect(answers.filter(allowed)).toHaveLength(3)
      expect(answers.filter((answer) => !allowed(answer)).map(code)).toEqual(['budget_exhausted'])
    },
    TIMEOUT,
  )

  /** `plan-mcp --listen 0 --store … <flags>` until `stop()`; its URL once it listens. */
  async function listen(flags: readonly string[]) {
    const controller = new AbortController()
    const io = { ...bufferIo(workspace.base), signal: controller.signal }
    const argv = ['--policy', policyFile, '--listen', '0', '--store', storeUrl, ...flags, '--']
    const exited = runPlanMcp(
      [...argv, process.execPath, filesystemServerScript, workspace.root],
      io,
    )
    await expect.poll(() => io.err(), { timeout: TIMEOUT }).toMatch(/listening on http:\/\/\S+/)
    const url = new URL(/listening on (http:\/\/\S+)/.exec(io.err())?.[1] ?? '')
    const stop = async () => {
      controller.abort()
      return exited
    }
    return { url, stop }
  }

  /** One HTTP session of `calls` reads of README.md; their answers. */
  async function httpSession(url: URL, calls: number): Promise<Answer[]> {
    const client = new Client({ name: 'store-listen-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(url))
    const answers: Answer[] = []
    try {
      for (let index = 0; index < calls; index += 1) {
        const path = join(workspace.root, 'README.md')
        answers.push({
          result: (await client.callTool({
            name: 'read_text_file',
            arguments: { path },
          })) as Answer['result'],
        })
      }
    } finally {
      await client.close()
    }
    return answers
  }

  it(
    'should keep each HTTP session a run in the store and share a budget across sessions and restarts',
    async () => {
      const runId = randomUUID()
      const user = `user=${randomUUID()}`
      const first = await listen(['--run-id', runId, '--key', user])
      const answers = (
        await Promise.all([httpSession(first.url, 2), httpSession(first.url, 2)])
      ).flat()
      // maxCalls 2 per session, each a run with one writer (two sharing one run would get
      // store_failed), and 3 reads per user across all of them.
      expect(answers.filter(allowed)).toHaveLength(3)
      expect(answers.filter((answer) => !allowed(answer)).map(code)).toEqual(['budget_exhausted'])
      expect(await first.stop()).toBe(0)
      // A new process: the user's shared budget is still used up.
      const second = await listen(['--run-id', runId, '--key', user])
      expect((await httpSession(second.url, 1)).map(code)).toEqual(['budget_exhausted'])
      expect(await second.stop()).toBe(0)
    },
    TIMEOUT,
  )
})
