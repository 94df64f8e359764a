// What the AI SDK guard costs per run in its own process, by measures a shared machine does not
// move: `node --expose-gc src/ai-sdk-cost.ts [runs] [rounds]` takes the arms of `ai-sdk-runs.ts`
// in turn, round after round, and prints for each the median over rounds of the main thread's
// CPU time per run (`process.threadCpuUsage`) and each arm's paired difference from the bare
// run, then the bytes each allocates per run (run it with `--max-semi-space-size=64`, so that a
// batch runs without a collection). `--arm=NAME` runs only that arm, `runs` times (for a profiler).
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getHeapStatistics } from 'node:v8'
import { createPlanCompiler } from '@plan/core'
import { AI_SDK_ARMS, aiSdkRuns } from './ai-sdk-runs.ts'
import type { Run } from './interleave.ts'
import { echoPolicy } from './plans.ts'

const numbers = process.argv.filter((arg) => /^\d+$/.test(arg)).map(Number)
const runs = numbers[0] ?? 200
const rounds = numbers[1] ?? 21
const only = process.argv.find((arg) => arg.startsWith('--arm='))?.slice(6)
const collect = (globalThis as { gc?: () => void }).gc
if (collect === undefined) throw new Error('run with node --expose-gc')
const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage
if (threadCpuUsage === undefined) throw new Error('needs Node 23.9 or later')

const root = await realpath(await mkdtemp(join(tmpdir(), 'plan-ai-sdk-cost-')))
await writeFile(join(root, 'README.md'), '# bench\n')
const compiler = await createPlanCompiler(echoPolicy(root))
const arms = aiSdkRuns(compiler)

/** Main-thread CPU µs per run of one batch. */
async function cpuBatch(run: Run): Promise<number> {
  const before = threadCpuUsage?.call(process)
  for (let index = 0; index < runs; index += 1) await run()
  const after = threadCpuUsage?.call(process)
  return before === undefined || after === undefined
    ? Number.NaN
    : (after.user + after.system - before.user - before.system) / runs
}

/**
 * Bytes allocated per run of one batch, after a full collection: what the heap grew by (the
 * young generation is made large enough that the batch runs without a collection; 0 if one ran).
 */
async function bytesBatch(run: Run): Promise<number> {
  collect?.()
  const before = getHeapStatistics()
  for (let index = 0; index < runs; index += 1) await run()
  const after = getHeapStatistics()
  const grown = after.used_heap_size - before.used_heap_size
  return grown > 0 && after.total_heap_size >= before.total_heap_size ? grown / runs : 0
}

const median = (values: readonly number[]) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

try {
  if (only !== undefined) {
    const index = AI_SDK_ARMS.indexOf(only as (typeof AI_SDK_ARMS)[number])
    const run = arms[index]
    if (run === undefined) throw new Error(`no arm ${only}`)
    for (let index = 0; index < runs; index += 1) await run()
  } else {
    const cpu: number[][] = arms.map(() => [])
    const bytes: number[][] = arms.map(() => [])
    // CPU time first, without collections between batches (a full collection would make the
    // next batch start cold); the allocation counts after, each batch after a collection.
    for (let round = 0; round < rounds + 3; round += 1) {
      const order = round % 2 === 0 ? [...arms.keys()] : [...arms.keys()].toReversed()
      for (const index of order) {
        const measured = await cpuBatch(arms[index] as Run)
        if (round >= 3) cpu[index]?.push(measured)
      }
    }
    for (let round = 0; round < 3; round += 1)
      for (const [index, run] of arms.entries()) bytes[index]?.push(await bytesBatch(run))
    for (const [index, name] of AI_SDK_ARMS.entries()) {
      const own = cpu[index] ?? []
      const paired = own.map((value, round) => value - (cpu[0]?.[round] ?? 0))
      process.stdout.write(
        `${name.padEnd(8)} cpu ${median(own).toFixed(1)} µs/run (+${median(paired).toFixed(1)} paired), ` +
          `${Math.round(median(bytes[index] ?? []))} bytes/run\n`,
      )
    }
  }
} finally {
  await rm(root, { recursive: true, force: true })
}
