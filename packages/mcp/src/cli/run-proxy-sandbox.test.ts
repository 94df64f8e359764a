import { spawnSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bufferIo } from '../test-utils/buffer-io.js'
import { createMcpWorkspace, type McpTestWorkspace } from '../test-utils/workspace.js'
import { serverExitReport } from './load-sandbox.js'
import { runPlanMcp } from './run-plan-mcp.js'

const TIMEOUT = 60_000
const bwrapMissing = spawnSync('bwrap', ['--version']).status !== 0

describe('serverExitReport', () => {
  it('should name the exit and the paths the server could not open, with the --sandbox-read hint', () => {
    const report = serverExitReport(
      1,
      null,
      "node:internal/modules/cjs/loader:1228\nError: Cannot find module '/opt/servers/fs/index.js'\n",
    )
    expect(report).toContain('ended with exit code 1')
    expect(report).toContain('/opt/servers/fs/index.js')
    expect(report).toContain('--sandbox-read')
  })

  it('should give the general hint when stderr names no path', () => {
    const report = serverExitReport(null, 'SIGKILL', 'Killed\n')
    expect(report).toContain('ended with signal SIGKILL')
    expect(report).toContain('--sandbox-read <folder>')
  })
})

describe.skipIf(bwrapMissing && process.env.CI !== 'true')('plan-mcp --sandbox', () => {
  let workspace: McpTestWorkspace

  beforeAll(async () => {
    workspace = await createMcpWorkspace()
  })

  afterAll(async () => {
    await workspace?.remove()
  })

  it(
    'should forward the stderr of a server that dies in the sandbox and exit non-zero with a hint',
    async () => {
      const policyFile = join(workspace.base, 'dies-policy.json')
      await writeFile(
        policyFile,
        JSON.stringify({ version: 1, workspace: { roots: [workspace.root] }, tools: {} }),
      )
      // The server's code lives outside the workspace, which the sandbox does not show.
      const server = join(workspace.outside, 'server.mjs')
      await writeFile(server, 'console.error("server started")\n')
      const io = bufferIo(workspace.root)
      const argv = ['--policy', policyFile, '--sandbox', '--', process.execPath, server]
      expect(await runPlanMcp(argv, io)).toBe(1)
      expect(io.err()).toContain(`Cannot find module '${server}'`)
      expect(io.err()).toContain('the sandboxed server ended with exit code 1')
      expect(io.err()).toContain(`It could not open ${server}`)
      expect(io.err()).toContain('--sandbox-read')
      // Named with --sandbox-read, the same server starts (and ends at once, with code 0).
      const named = bufferIo(workspace.root)
      const withRead = ['--policy', policyFile, '--sandbox', '--sandbox-read', workspace.outside]
      expect(await runPlanMcp([...withRead, '--', process.execPath, server], named)).toBe(0)
      expect(named.err()).toContain('server started')
    },
    TIMEOUT,
  )
})
