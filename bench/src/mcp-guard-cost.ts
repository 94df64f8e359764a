// What the MCP guard costs per call in its own process, over a long per-call session:
// `node --expose-gc src/mcp-guard-cost.ts [calls] [--store] [--disk]` reads one file through
// `createMcpCallGuard` (authorize, then finish with the server's answer) and prints, at each
// checkpoint, the CPU time per call since the last one and the heap kept per call so far.
// `--store` saves through the memory guard store, `--disk` checks the path on disk,
// `--structured` answers as the filesystem server does (the text in `structuredContent` too),
// `--lines=N` reads a file of N lines (22 bytes each; default 20).
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemoryGuardStore } from '@plan/core'
import { createMcpCallGuard } from '@plan/mcp'

const calls = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 100_000)
const withStore = process.argv.includes('--store')
const onDisk = process.argv.includes('--disk')
const structured = process.argv.includes('--structured')
const lines = Number(process.argv.find((arg) => arg.startsWith('--lines='))?.slice(8) ?? 20)
const collect = (globalThis as { gc?: () => void }).gc
if (collect === undefined) throw new Error('run with node --expose-gc')

const root = await realpath(await mkdtemp(join(tmpdir(), 'plan-mcp-cost-')))
const file = join(root, 'README.md')
const text = `# bench\n${'A line of the readme.\n'.repeat(lines)}`
await writeFile(file, text)
const session = await createMcpCallGuard({
  policy: {
    version: 1,
    workspace: { roots: [root], deny: ['.env'] },
    tools: { read_text_file: { args: { path: { type: 'path', access: 'read' } } } },
    budgets: { maxIdenticalCalls: 1_000_000, maxDenials: 1_000_000, maxCalls: 10_000_000 },
  },
  checkPathsOnDisk: onDisk,
  ...(withStore ? { store: createMemoryGuardStore(), runId: 'cost' } : {}),
})

/** One call as the proxy makes it: the answer is parsed from the server's message, so new each time. */
async function call(index: number): Promise<void> {
  const decision = await session.authorize('read_text_file', { path: file }, String(index))
  if (!decision.allowed) throw new Error(`refused: ${decision.issues[0]?.code}`)
  const answer = {
    content: [{ type: 'text', text }],
    ...(structured ? { structuredContent: { content: text } } : {}),
  }
  decision.finish(JSON.parse(JSON.stringify(answer)))
  // a store saves in the background: let it, as a session between two messages does
  if (withStore) await new Promise((resolve) => setImmediate(resolve))
}

function heapUsed(): number {
  collect?.()
  collect?.()
  return process.memoryUsage().heapUsed
}

const warmup = 2_000
for (let index = 0; index < warmup; index += 1) await call(index)
const heapBefore = heapUsed()
const checkpoints = [0.1, 0.25, 0.5, 1].map((share) => Math.round(calls * share))
let done = 0
for (const checkpoint of checkpoints) {
  const from = done
  const start = process.cpuUsage()
  for (; done < checkpoint; done += 1) await call(warmup + done)
  const used = process.cpuUsage(start)
  const perCall = (used.user + used.system) / (checkpoint - from)
  const kept = (heapUsed() - heapBefore) / checkpoint
  process.stdout.write(
    `${checkpoint} calls: ${perCall.toFixed(1)} µs CPU per call since the last line, ${Math.round(kept)} B of heap kept per call\n`,
  )
}
await rm(root, { recursive: true, force: true })
