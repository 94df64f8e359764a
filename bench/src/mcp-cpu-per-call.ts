// CPU time per `read_text_file` call of the process between an MCP client and the filesystem
// server: `node mcp-cpu-per-call.ts bin|pass-through [calls] [concurrency] [--http] [--bin=<bin.js>]
// [-- node flags]`.
// Prints the process's user and system CPU µs per call; node flags (e.g. `--cpu-prof`) go to it.
// `--http` speaks Streamable HTTP to `plan-mcp --listen` (or the HTTP pass-through) instead of
// stdio. `PLAN_BENCH_WRAP='valgrind --tool=callgrind'` runs the process under callgrind, its
// counts zeroed after the warm-up and dumped after the calls (`callgrind.out.<pid>.1`):
// instruction counts that do not depend on the machine's load.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'

const require = createRequire(import.meta.url)
const serverScript = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js')
const builtBin = join(dirname(require.resolve('@plan/mcp/package.json')), 'dist', 'bin.js')
const passThroughScript = fileURLToPath(new URL('./mcp-pass-through.ts', import.meta.url))

const argv = process.argv.slice(2)
const flagsAt = argv.indexOf('--')
const nodeFlags = flagsAt === -1 ? [] : argv.slice(flagsAt + 1)
const own = flagsAt === -1 ? argv : argv.slice(0, flagsAt)
const http = own.includes('--http')
// `--bin=<file>`: another build of plan-mcp's bin.js, e.g. a copy of `dist` before a change
const binFlag = own.find((word) => word.startsWith('--bin='))
const [arm, callsText = '2000', concurrencyText = '1'] = own.filter(
  (word) => word !== '--http' && word !== binFlag,
)
if (arm !== 'bin' && arm !== 'pass-through') {
  process.stderr.write(
    'usage: mcp-cpu-per-call.ts bin|pass-through [calls] [concurrency] [--http] [--bin=<bin.js>] [-- node flags]\n',
  )
  process.exit(2)
}
const planMcpBin = binFlag === undefined ? builtBin : binFlag.slice('--bin='.length)
const calls = Number(callsText)
const concurrency = Number(concurrencyText)

/** User and system CPU µs of a process, from `/proc/<pid>/stat` (100 ticks a second). */
function cpuMicros(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return { user: Number(fields[11]) * 1e4, system: Number(fields[12]) * 1e4 }
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
const modeArgs =
  arm === 'bin'
    ? [planMcpBin, '--policy', policyFile, ...(http ? ['--listen', '0'] : []), '--', ...server]
    : [passThroughScript, http ? 'http' : 'stdio', '--', ...server]
const wrap = process.env.PLAN_BENCH_WRAP?.split(' ').filter((word) => word !== '') ?? []
const [command = process.execPath, ...wrapArgs] = [...wrap, process.execPath]
const args = [...wrapArgs, ...nodeFlags, ...modeArgs]
const callgrind = wrap.some((word) => word.includes('callgrind'))

/** A process that serves HTTP: its port, once it prints it on stderr. */
async function listening(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  const port = await new Promise<number>((resolve, reject) => {
    let text = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8')
      const match = /listening (?:on http:\/\/127\.0\.0\.1:)?(\d+)/.exec(text)
      if (match?.[1] !== undefined) resolve(Number(match[1]))
    })
    child.once('exit', (code) => reject(new Error(`bench: exited (${code}): ${text}`)))
  })
  child.stderr?.resume()
  return { child, port }
}

const served = http ? await listening() : undefined
const transport: Transport =
  served === undefined
    ? new StdioClientTransport({ command, args, stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${served.port}/mcp`))
const client = new Client({ name: 'bench', version: '1.0.0' })
// a process under valgrind starts slowly
const timeout = wrap.length === 0 ? undefined : { timeout: 600_000 }
await client.connect(transport, timeout)
// a stdio process has a pid once connected
const pid = (served?.child.pid ?? (transport as StdioClientTransport).pid) as number
const read = async () => {
  const result = await client.callTool(
    { name: 'read_text_file', arguments: { path: file } },
    undefined,
    timeout,
  )
  if (result.isError === true) throw new Error('the read was refused')
}
const wave = async (count: number) => {
  for (let done = 0; done < count; done += concurrency)
    await Promise.all(Array.from({ length: concurrency }, read))
}
await wave(200)
if (callgrind) execFileSync('callgrind_control', ['--zero', String(pid)], { stdio: 'ignore' })
const before = cpuMicros(pid)
await wave(calls)
const after = cpuMicros(pid)
if (callgrind) execFileSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' })
const user = (after.user - before.user) / calls
const system = (after.system - before.system) / calls
process.stdout.write(
  `${arm}${http ? ' http' : ''}: ${(user + system).toFixed(0)} µs CPU per call (user ${user.toFixed(0)}, system ${system.toFixed(0)}; ${calls} calls, ${concurrency} in flight; pid ${pid})\n`,
)
await client.close()
served?.child.kill('SIGTERM')
await rm(root, { recursive: true, force: true })
