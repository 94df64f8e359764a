import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initializeRequest } from '../test-utils/initialize-request.js'
import {
  createMcpWorkspace,
  filesystemPolicy,
  filesystemServerScript,
  type McpTestWorkspace,
} from '../test-utils/workspace.js'

const TIMEOUT = 120_000
const bin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url))

interface Session {
  readonly child: ChildProcessWithoutNullStreams
  readonly answers: () => Record<string, unknown>[]
  readonly stderr: () => string
  readonly exited: Promise<number | null>
}

/** The built `plan-mcp` over stdio in front of the filesystem server, answers parsed. */
function startPlanMcp(policyFile: string, root: string): Session {
  const child = spawn(
    process.execPath,
    [bin, '--policy', policyFile, '--', process.execPath, filesystemServerScript, root],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  )
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  // 'close', not 'exit': only then has everything the process wrote to stdout and stderr arrived.
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  const answers = () =>
    stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
  return { child, answers, stderr: () => stderr, exited }
}

function send(session: Session, message: unknown): void {
  session.child.stdin.write(`${JSON.stringify(message)}\n`)
}

function readCall(id: number, file: string) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'read_text_file', arguments: { path: file } },
  }
}

describe('plan-mcp over stdio with bad input', () => {
  let workspace: McpTestWorkspace
  let policyFile: string

  beforeAll(async () => {
    workspace = await createMcpWorkspace()
    policyFile = join(workspace.base, 'framing-policy.json')
    await writeFile(policyFile, JSON.stringify(filesystemPolicy(workspace.root)))
  })

  afterAll(async () => {
    await workspace?.remove()
  })

  it(
    'should answer an 11 MiB line with an error, then answer the next call',
    async () => {
      const session = startPlanMcp(policyFile, workspace.root)
      send(session, initializeRequest(1))
      await expect.poll(() => session.answers().length, { timeout: TIMEOUT }).toBe(1)
      send(session, { jsonrpc: '2.0', method: 'notifications/initialized' })
      const huge = JSON.stringify(readCall(2, 'x'.repeat(11 * 1024 * 1024)))
      session.child.stdin.write(`${huge}\n`)
      send(session, readCall(3, join(workspace.root, 'README.md')))
      await expect.poll(() => session.answers().length, { timeout: TIMEOUT }).toBe(3)
      const [, tooLong, answer] = session.answers()
      expect(tooLong).toMatchObject({ id: null, error: { code: -32600 } })
      expect(answer).toMatchObject({ id: 3, result: { content: [{ type: 'text' }] } })
      expect(JSON.stringify(answer)).toContain('Hello from the workspace')
      session.child.stdin.end()
      expect(await session.exited).toBe(0)
    },
    TIMEOUT,
  )

  it(
    'should answer 1,000 bad lines with 1,000 errors, logging one line each',
    async () => {
      const session = startPlanMcp(policyFile, workspace.root)
      send(session, initializeRequest(1))
      await expect.poll(() => session.answers().length, { timeout: TIMEOUT }).toBe(1)
      const bad = Array.from({ length: 1000 }, (_, index) =>
        index % 2 === 0
          ? `{"jsonrpc": "2.0", "id": ${index}, oops`
          : `{"id": ${index}, "nope": true}`,
      )
      session.child.stdin.write(`${bad.join('\n')}\n`)
      send(session, { jsonrpc: '2.0', id: 'after', method: 'ping' })
      await expect.poll(() => session.answers().length, { timeout: TIMEOUT }).toBe(1002)
      const errors = session.answers().slice(1, 1001)
      expect(
        errors.filter((answer) => (answer.error as { code?: number }).code === -32700),
      ).toHaveLength(500)
      // A line that is JSON with an id is answered under that id.
      expect(
        errors
          .filter((answer) => (answer.error as { code?: number }).code === -32600)
          .map((answer) => answer.id),
      ).toEqual(Array.from({ length: 500 }, (_, index) => index * 2 + 1))
      expect(session.answers()[1001]).toMatchObject({ id: 'after', result: {} })
      session.child.stdin.end()
      expect(await session.exited).toBe(0)
      // The filesystem server logs on the same stderr; plan-mcp logs one line per bad message.
      const own = session
        .stderr()
        .split('\n')
        .filter((line) => line !== '' && !/^(Secure MCP|Client does not)/.test(line))
      expect(own.filter((line) => !line.startsWith('plan-mcp: input line '))).toEqual([])
      expect(own).toHaveLength(1000)
    },
    TIMEOUT,
  )

  it(
    'should answer a call whose server answer is over 10 MiB with an error, then the next call',
    async () => {
      const big = join(workspace.root, 'big.txt')
      await writeFile(big, 'y'.repeat(11 * 1024 * 1024))
      const session = startPlanMcp(policyFile, workspace.root)
      send(session, initializeRequest(1))
      await expect.poll(() => session.answers().length, { timeout: TIMEOUT }).toBe(1)
      send(session, { jsonrpc: '2.0', method: 'notifications/initialized' })
      send(session, readCall(2, big))
      send(session, readCall(3, join(workspace.root, 'README.md')))
      await expect.poll(() => session.answers().length, { timeout: TIMEOUT }).toBe(3)
      const byId = new Map(session.answers().map((answer) => [answer.id, answer]))
      expect(JSON.stringify(byId.get(2))).toContain('longer than 10485760 bytes')
      expect(JSON.stringify(byId.get(2))).not.toContain('yyyy')
      expect(JSON.stringify(byId.get(3))).toContain('Hello from the workspace')
      session.child.stdin.end()
      expect(await session.exited).toBe(0)
    },
    TIMEOUT,
  )
})
