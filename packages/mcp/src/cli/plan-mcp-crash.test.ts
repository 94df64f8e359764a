import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initializeRequest } from '../test-utils/initialize-request.js'
import { postgresTestUrl } from '../test-utils/postgres-url.js'

const TIMEOUT = 120_000
const url = postgresTestUrl()
const bin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url))
const server = fileURLToPath(new URL('../test-utils/slow-tool-server.mjs', import.meta.url))

interface Answer {
  readonly id?: unknown
  readonly result?: { readonly isError?: boolean; readonly content?: { text?: string }[] }
}

interface Session {
  readonly child: ChildProcessWithoutNullStreams
  /** Sends a `slow_write` call; resolves with its answer's text, or the refusal's first code. */
  readonly call: (id: number, name: string) => Promise<string>
}

/** The built plan-mcp with `--store`, over stdio, in front of the slow-tool server. */
async function startPlanMcp(policyFile: string, dir: string, runId: string): Promise<Session> {
  const argv = ['--policy', policyFile, '--store', url as string, '--run-id', runId]
  const child = spawn(process.execPath, [bin, ...argv, '--', process.execPath, server, dir], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  child.stderr.resume()
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  // Complete lines only: the last piece may still be arriving.
  const answers = () =>
    stdout
      .split('\n')
      .slice(0, -1)
      .map((line) => JSON.parse(line) as Answer)
  const answer = async (id: number) => {
    await expect
      .poll(() => answers().some((entry) => entry.id === id), { timeout: TIMEOUT })
      .toBe(true)
    return answers().find((entry) => entry.id === id) ?? {}
  }
  child.stdin.write(`${JSON.stringify(initializeRequest(0))}\n`)
  await answer(0)
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
  const call = async (id: number, name: string) => {
    const params = { name: 'slow_write', arguments: { name } }
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params })}\n`)
    const { result } = await answer(id)
    const text = result?.content?.[0]?.text ?? ''
    return result?.isError === true ? (/^- ([a-z_]+)/m.exec(text)?.[1] ?? text) : text
  }
  return { child, call }
}

function starts(dir: string): string[] {
  const log = join(dir, 'starts.log')
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []
}

describe.skipIf(url === undefined)('plan-mcp --store killed while a tool runs', () => {
  let dir: string
  let policyFile: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plan-mcp-crash-'))
    policyFile = join(dir, 'policy.json')
    const policy = {
      version: 1,
      workspace: { roots: [dir] },
      tools: { slow_write: { args: { name: { type: 'string' } } } },
      budgets: { maxCalls: 3 },
    }
    await writeFile(policyFile, JSON.stringify(policy))
  })

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it(
    'should report the running call as interrupted after a restart with the same --run-id, never run it again',
    async () => {
      const runId = `crash-${randomUUID()}`
      await writeFile(join(dir, 'hang'), '')
      const first = await startPlanMcp(policyFile, dir, runId)
      const exited = new Promise((resolve) =>
        first.child.on('close', (_, signal) => resolve(signal)),
      )
      void first.call(1, 'a').catch(() => undefined)
      await expect.poll(() => starts(dir), { timeout: TIMEOUT }).toEqual(['a'])
      first.child.kill('SIGKILL')
      expect(await exited).toBe('SIGKILL')
      await rm(join(dir, 'hang'))
      const second = await startPlanMcp(policyFile, dir, runId)
      // The client asks again: the call may have taken effect, so it is refused, not run.
      expect(await second.call(1, 'a')).toBe('interrupted_call')
      expect(await second.call(2, 'b')).toBe('wrote b')
      // maxCalls 3: the interrupted start still counts, with b's, so one call is left.
      expect(await second.call(3, 'c')).toBe('wrote c')
      expect(await second.call(4, 'd')).toBe('budget_exhausted')
      second.child.stdin.end()
      expect(starts(dir)).toEqual(['a', 'b', 'c'])
    },
    TIMEOUT,
  )
})
