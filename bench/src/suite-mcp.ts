import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { createMcpGuardProxy } from '@plan/mcp'
import { type Row, round, roundSpread, type Spread, spreadOf } from './measure.ts'

const require = createRequire(import.meta.url)
const serverScript = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js')
const planMcpBin = join(dirname(require.resolve('@plan/mcp/package.json')), 'dist', 'bin.js')
const passThroughScript = fileURLToPath(new URL('./mcp-pass-through.ts', import.meta.url))

/** Rounds of each arm, taken in turn so every arm sees the same load. */
const ROUNDS = 5
interface Load {
  readonly concurrency: number
  readonly calls: number
}

/** Calls per round at each concurrency: sequential calls at 1, waves of calls at 200. */
const LOADS: readonly Load[] = [
  { concurrency: 1, calls: 200 },
  { concurrency: 200, calls: 1000 },
]

/**
 * Calls each arm answers before any is measured: a proxy serves a session of many calls, and
 * the first few hundred of a process run while V8 is still compiling its code (the guard's more
 * than the pass-through's), which is start-up cost, not cost per call.
 */
const WARM_UP: Load = { concurrency: 200, calls: 3000 }

function policyFor(root: string) {
  return {
    version: 1 as const,
    workspace: { roots: [root], deny: ['.env'] },
    tools: {
      read_text_file: { args: { path: { type: 'path' as const, access: 'read' as const } } },
    },
    // every call reads the same file: only the loop budgets would stop it
    budgets: { maxIdenticalCalls: 1_000_000, maxDenials: 1_000_000, maxCalls: 1_000_000 },
  }
}

async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(transport)
  return client
}

/** A process that prints `… <port>…` on stderr once it listens; the port and a way to stop it. */
async function listening(argv: readonly string[], pattern: RegExp) {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'] })
  const port = await new Promise<number>((resolve, reject) => {
    let text = ''
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8')
      const match = pattern.exec(text)
      if (match?.[1] !== undefined) resolve(Number(match[1]))
    })
    child.once('exit', (code) => reject(new Error(`bench: ${argv[0]} exited (${code}): ${text}`)))
  })
  child.stderr.resume()
  return { port, pid: child.pid, stop: () => child.kill('SIGTERM') }
}

/** Latencies in µs of `calls` reads, `concurrency` in flight at once. */
async function latencies(client: Client, path: string, load: Load) {
  const times: number[] = []
  const call = async () => {
    const start = performance.now()
    const result = await client.callTool({ name: 'read_text_file', arguments: { path } })
    times.push((performance.now() - start) * 1000)
    if (result.isError === true) throw new Error('bench: the read was refused')
  }
  for (let done = 0; done < load.calls; done += load.concurrency) {
    await Promise.all(Array.from({ length: load.concurrency }, call))
  }
  return times
}

function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((left, right) => left - right)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] as number
}

interface Arm {
  readonly name: string
  readonly client: Client
  /** The process between the client and the server, whose CPU time is counted. */
  readonly pid?: number | null
}

/** Clock ticks per second of `/proc/<pid>/stat` (`getconf CLK_TCK`; 100 on Linux). */
const CLOCK_TICKS = 100

/** CPU time (user + system) a process has used, in µs; undefined when it cannot be read. */
function cpuMicros(pid: number | null | undefined): number | undefined {
  if (pid === undefined || pid === null) return undefined
  try {
    // the fields after the command name, which is in parentheses and may hold spaces
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    const ticks = Number(fields[11]) + Number(fields[12])
    return Number.isFinite(ticks) ? (ticks * 1e6) / CLOCK_TICKS : undefined
  } catch {
    return undefined
  }
}

/** p50 and p99 of every arm, one spread per arm over the rounds (arms taken in turn). */
async function measureArms(arms: readonly Arm[], path: string, load: Load) {
  const p50: number[][] = arms.map(() => [])
  const p99: number[][] = arms.map(() => [])
  const cpu: number[] = arms.map(() => 0)
  for (const arm of arms) await latencies(arm.client, path, { concurrency: 1, calls: 50 })
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? [...arms.keys()] : [...arms.keys()].toReversed()
    for (const index of order) {
      const arm = arms[index] as Arm
      const before = cpuMicros(arm.pid)
      const times = await latencies(arm.client, path, load)
      const after = cpuMicros(arm.pid)
      if (before !== undefined && after !== undefined)
        cpu[index] = (cpu[index] ?? 0) + after - before
      p50[index]?.push(percentile(times, 0.5))
      p99[index]?.push(percentile(times, 0.99))
    }
  }
  return arms.map((arm, index) => ({
    name: arm.name,
    p50: spreadOf(p50[index] ?? []),
    p99: spreadOf(p99[index] ?? []),
    cpuPerCall:
      cpuMicros(arm.pid) === undefined ? undefined : (cpu[index] ?? 0) / (ROUNDS * load.calls),
  }))
}

type Measured = Awaited<ReturnType<typeof measureArms>>[number]

/** The CPU time per call of the process in the middle, against the pass-through's. */
function cpuNote(arm: Measured, baseline: Measured): string {
  if (arm.cpuPerCall === undefined || baseline.cpuPerCall === undefined) return ''
  return `; its process used ${round(arm.cpuPerCall)} µs CPU per call (pass-through ${round(baseline.cpuPerCall)})`
}

function rowsOf(transport: string, concurrency: number, measured: readonly Measured[]): Row[] {
  const byName = new Map(measured.map((arm) => [arm.name, arm]))
  const baseline = byName.get('pass-through') as Measured
  const direct = byName.get('direct')
  const row = (arm: Measured, quantile: 'p50' | 'p99', target?: string): Row => {
    const value: Spread = arm[quantile]
    const base: Spread = baseline[quantile]
    const overDirect =
      direct === undefined ? '' : `; ${round(value.median / direct[quantile].median)}× direct`
    return {
      suite: 'mcp',
      case: `read_text_file ${quantile}, ${transport}, ${concurrency} in flight: ${arm.name}`,
      value: round(value.median),
      valueSpread: roundSpread(value),
      unit: 'µs',
      baseline: `an unguarded pass-through of the SDK's ${transport} transports, same run`,
      baselineValue: round(base.median),
      baselineSpread: roundSpread(base),
      ratio: round(value.median / base.median),
      ...(target === undefined ? {} : { target }),
      note: `${round(((value.median - base.median) / base.median) * 100)}% over the pass-through${overDirect}${cpuNote(arm, baseline)}; each arm after ${WARM_UP.calls.toLocaleString('en-US')} calls of warm-up`,
    }
  }
  return measured
    .filter((arm) => arm.name !== 'pass-through')
    .flatMap((arm) => {
      const target = arm.name.startsWith('plan-mcp') ? '≤ 1.15× (p50)' : undefined
      return [row(arm, 'p50', target), row(arm, 'p99')]
    })
}

/** The stdio arms: straight to the server, the SDK pass-through, the plan-mcp bin, the library. */
async function stdioArms(root: string, policyFile: string, stops: (() => void)[]): Promise<Arm[]> {
  const server = [serverScript, root]
  const stdio = async (name: string, args: string[]): Promise<Arm> => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args,
      stderr: 'ignore',
    })
    const client = await connect(transport)
    return { name, client, pid: transport.pid }
  }
  const [clientSide, proxySide] = InMemoryTransport.createLinkedPair()
  const proxy = await createMcpGuardProxy({
    policy: policyFor(root),
    client: proxySide,
    server: { command: [process.execPath, ...server] },
  })
  stops.push(() => void proxy.close())
  return [
    { ...(await stdio('direct', server)), pid: undefined },
    await stdio('pass-through', [passThroughScript, 'stdio', '--', process.execPath, ...server]),
    await stdio('plan-mcp bin', [
      planMcpBin,
      '--policy',
      policyFile,
      '--',
      process.execPath,
      ...server,
    ]),
    { name: 'createMcpGuardProxy in process', client: await connect(clientSide) },
  ]
}

/** The Streamable HTTP arms: the SDK pass-through and `plan-mcp --listen`. */
async function httpArms(root: string, policyFile: string, stops: (() => void)[]): Promise<Arm[]> {
  const server = [process.execPath, serverScript, root]
  const passThrough = await listening(
    [passThroughScript, 'http', '--', ...server],
    /listening (\d+)/,
  )
  stops.push(passThrough.stop)
  const planMcp = await listening(
    [planMcpBin, '--policy', policyFile, '--listen', '0', '--', ...server],
    /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/,
  )
  stops.push(planMcp.stop)
  const http = (port: number) =>
    connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)))
  return [
    { name: 'pass-through', client: await http(passThrough.port), pid: passThrough.pid },
    { name: 'plan-mcp --listen', client: await http(planMcp.port), pid: planMcp.pid },
  ]
}

/**
 * p50 and p99 latency of `read_text_file` through `plan-mcp` against an unguarded pass-through of
 * the same transports and against the direct server, at 1 and 200 calls in flight, one run.
 */
export async function mcpSuite(): Promise<Row[]> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'plan-bench-mcp-')))
  const file = join(root, 'README.md')
  await writeFile(file, `# bench\n${'A line of the readme.\n'.repeat(20)}`)
  const policyFile = join(root, '.policy.json')
  await writeFile(policyFile, JSON.stringify(policyFor(root)))
  const stops: (() => void)[] = []
  const arms: Arm[] = []
  try {
    const stdio = await stdioArms(root, policyFile, stops)
    arms.push(...stdio)
    const http = await httpArms(root, policyFile, stops)
    arms.push(...http)
    for (const arm of arms) await latencies(arm.client, file, WARM_UP)
    const rows: Row[] = []
    for (const load of LOADS) {
      rows.push(...rowsOf('stdio', load.concurrency, await measureArms(stdio, file, load)))
      rows.push(...rowsOf('Streamable HTTP', load.concurrency, await measureArms(http, file, load)))
    }
    return rows
  } finally {
    await Promise.allSettled(arms.map((arm) => arm.client.close()))
    for (const stop of stops) stop()
    await rm(root, { recursive: true, force: true })
  }
}
