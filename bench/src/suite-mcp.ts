import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { createMcpGuardProxy } from '@plan/mcp'
import { type Row, round, roundSpread, type Spread, scaleSpread, timeRunsAsync } from './measure.ts'

const CALLS = 300

const require = createRequire(import.meta.url)
const serverScript = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js')
const planMcpBin = join(dirname(require.resolve('@plan/mcp/package.json')), 'dist', 'bin.js')

function policyFor(root: string) {
  return {
    version: 1 as const,
    workspace: { roots: [root], deny: ['.env'] },
    tools: {
      read_text_file: { args: { path: { type: 'path' as const, access: 'read' as const } } },
    },
    // every call reads the same file: only the loop budgets would stop it
    budgets: { maxIdenticalCalls: 1_000_000, maxDenials: 1_000_000 },
  }
}

async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(transport)
  return client
}

/** Time per `read_text_file` call, in µs, over batches of CALLS sequential calls. */
async function perCall(client: Client, path: string): Promise<Spread> {
  const batch = async () => {
    for (let index = 0; index < CALLS; index += 1) {
      const result = await client.callTool({ name: 'read_text_file', arguments: { path } })
      if (result.isError === true) throw new Error('bench: the read was refused')
    }
  }
  return scaleSpread(await timeRunsAsync(batch, 5, 1), 1000 / CALLS)
}

/** Per-call cost of the MCP proxy against calling the filesystem server directly, same run. */
export async function mcpSuite(): Promise<Row[]> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'plan-bench-mcp-')))
  const file = join(root, 'README.md')
  await writeFile(file, `# bench\n${'A line of the readme.\n'.repeat(20)}`)
  const policyFile = join(root, '.policy.json')
  await writeFile(policyFile, JSON.stringify(policyFor(root)))
  const server = {
    command: process.execPath,
    args: [serverScript, root],
    stderr: 'ignore' as const,
  }
  const direct = await connect(new StdioClientTransport(server))
  const [clientSide, proxySide] = InMemoryTransport.createLinkedPair()
  const proxy = await createMcpGuardProxy({
    policy: policyFor(root),
    client: proxySide,
    server: { command: [process.execPath, serverScript, root] },
  })
  const embedded = await connect(clientSide)
  const bin = await connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [planMcpBin, '--policy', policyFile, '--', process.execPath, serverScript, root],
      stderr: 'ignore',
    }),
  )
  try {
    const baseline = await perCall(direct, file)
    const viaBin = await perCall(bin, file)
    const viaLibrary = await perCall(embedded, file)
    const row = (suiteCase: string, value: Spread): Row => ({
      suite: 'mcp',
      case: suiteCase,
      value: round(value.median),
      valueSpread: roundSpread(value),
      unit: 'µs/call',
      baseline: 'the same call, client straight to the server over stdio',
      baselineValue: round(baseline.median),
      baselineSpread: roundSpread(baseline),
      ratio: round(value.median / baseline.median),
      note: `adds ${round(value.median - baseline.median)} µs per call`,
    })
    return [
      row(
        'read_text_file through the plan-mcp bin (per-call mode, path checked on disk; one more process, two stdio hops)',
        viaBin,
      ),
      row(
        'read_text_file through createMcpGuardProxy in the client’s process (per-call mode, path checked on disk)',
        viaLibrary,
      ),
    ]
  } finally {
    await Promise.allSettled([direct.close(), bin.close(), embedded.close(), proxy.close()])
    await rm(root, { recursive: true, force: true })
  }
}
