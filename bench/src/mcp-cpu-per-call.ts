// CPU time per `read_text_file` call of the process between an MCP client and the filesystem
// server: `node mcp-cpu-per-call.ts bin|pass-through [calls] [concurrency] [-- node flags]`.
// Prints the process's user + system CPU µs per call; node flags (e.g. `--cpu-prof`) go to it.
import { readFileSync } from 'node:fs'
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const require = createRequire(import.meta.url)
const serverScript = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js')
const planMcpBin = join(dirname(require.resolve('@plan/mcp/package.json')), 'dist', 'bin.js')
const passThroughScript = fileURLToPath(new URL('./mcp-pass-through.ts', import.meta.url))

const [arm, callsText = '2000', concurrencyText = '1', separator, ...nodeFlags] =
  process.argv.slice(2)
if ((arm !== 'bin' && arm !== 'pass-through') || (separator !== undefined && separator !== '--')) {
  process.stderr.write(
    'usage: mcp-cpu-per-call.ts bin|pass-through [calls] [concurrency] [-- node flags]\n',
  )
  process.exit(2)
}
const calls = Number(callsText)
const concurrency = Number(concurrencyText)

/** User + system CPU µs of a process, from `/proc/<pid>/stat` (100 ticks a second). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) * 1e4
}

const root = await realpath(await mkdtemp(join(tmpdir(), 'plan-bench-mcp-cpu-')))
const file = join(root, 'README.md')
await writeFile(file, `# bench\n${'A line of the readme.\n'.repeat(20)}`)
const policyFile = join(root, '.policy.json')
await writeFile(
  policyFile,
  JSON.stringify({
    version: 1,
    workspace: { roots: [root], deny: ['.env'] },
    tools: { read_text_file: { args: { path: { type: 'path', access: 'read' } } } },
    budgets: { maxIdenticalCalls: 1_000_000, maxDenials: 1_000_000, maxCalls: 1_000_000 },
  }),
)
const server = [process.execPath, serverScript, root]
const args =
  arm === 'bin'
    ? [...nodeFlags, planMcpBin, '--policy', policyFile, '--', ...server]
    : [...nodeFlags, passThroughScript, 'stdio', '--', ...server]
const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'inherit' })
const client = new Client({ name: 'bench', version: '1.0.0' })
await client.connect(transport)
const read = async () => {
  const result = await client.callTool({ name: 'read_text_file', arguments: { path: file } })
  if (result.isError === true) throw new Error('the read was refused')
}
const wave = async (count: number) => {
  for (let done = 0; done < count; done += concurrency)
    await Promise.all(Array.from({ length: concurrency }, read))
}
await wave(200)
const pid = transport.pid as number
process.stderr.write(`pid ${pid}\n`)
const before = cpuMicros(pid)
await wave(calls)
const used = cpuMicros(pid) - before
process.stdout.write(
  `${arm}: ${(used / calls).toFixed(0)} µs CPU per call (${calls} calls, ${concurrency} in flight)\n`,
)
await client.close()
await rm(root, { recursive: true, force: true })
