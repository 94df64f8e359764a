import { performance } from 'node:perf_hooks'
import { type Spread, spreadOf } from './measure.ts'

/** One measured run (an agent run, a `generateText` call). */
export type Run = () => Promise<unknown>

/** Runs per timed batch and batches per measurement; each batch is one sample. */
export interface BatchPlan {
  readonly runs: number
  readonly batches: number
}

/** A spread that keeps its samples, one per round, in the order they were taken. */
export interface Sampled extends Spread {
  readonly samples: readonly number[]
  /** CPU time (user + system, all threads) per run, one sample per round, when it was counted. */
  readonly cpu?: Sampled
  /**
   * CPU time of the main thread alone per run, one sample per round, where Node counts it
   * (`process.threadCpuUsage`, Node 23.9): what the runs themselves did, without the collector's
   * and the compiler's helper threads, whose share moves with the load of the machine.
   */
  readonly thread?: Sampled
}

// Node 23.9 and later; the rows then also give the main thread's CPU time.
const threadCpuUsage = (
  process as { threadCpuUsage?: (previous?: NodeJS.CpuUsage) => NodeJS.CpuUsage }
).threadCpuUsage?.bind(process)

/** Microseconds of user + system time. */
function cpuMicros(usage: NodeJS.CpuUsage): number {
  return usage.user + usage.system
}

// unmeasured batches first, so every function is measured once the JIT has compiled it
const WARMUP_BATCHES = 3

/** Wall, CPU and main-thread CPU time per run of one batch, in ms (thread: NaN where uncounted). */
async function batchTime(
  fn: Run,
  runs: number,
): Promise<{ wall: number; cpu: number; thread: number }> {
  const threadStart = threadCpuUsage?.()
  const cpuStart = process.cpuUsage()
  const start = performance.now()
  for (let index = 0; index < runs; index += 1) await fn()
  const wall = (performance.now() - start) / runs
  const cpu = cpuMicros(process.cpuUsage(cpuStart)) / 1000 / runs
  const thread =
    threadStart === undefined || threadCpuUsage === undefined
      ? Number.NaN
      : cpuMicros(threadCpuUsage(threadStart)) / 1000 / runs
  return { wall, cpu, thread }
}

function sampledOrNone(samples: readonly number[] | undefined): Sampled | undefined {
  return samples === undefined || samples.length === 0 || samples.some(Number.isNaN)
    ? undefined
    : sampled(samples)
}

/**
 * A {@link Sampled} of some samples (at least one), with the CPU and main-thread CPU samples
 * when there are some.
 */
export function sampled(
  samples: readonly number[],
  cpu?: readonly number[],
  thread?: readonly number[],
): Sampled {
  const cpuSampled = sampledOrNone(cpu)
  const threadSampled = sampledOrNone(thread)
  return {
    ...spreadOf(samples),
    samples,
    ...(cpuSampled === undefined ? {} : { cpu: cpuSampled }),
    ...(threadSampled === undefined ? {} : { thread: threadSampled }),
  }
}

/**
 * Time per run of each function, in batches taken in turn (one batch of each, then again), so
 * a measurement and its baseline see the same load on a shared machine; every other round takes
 * them in reverse order, so none always follows the same one.
 */
export async function perRunInterleaved(fns: readonly Run[], plan: BatchPlan): Promise<Sampled[]> {
  const samples: number[][] = fns.map(() => [])
  const cpu: number[][] = fns.map(() => [])
  const thread: number[][] = fns.map(() => [])
  const order = [...fns.keys()]
  for (let batch = 0; batch < WARMUP_BATCHES + plan.batches; batch += 1) {
    for (const index of batch % 2 === 0 ? order : order.toReversed()) {
      const time = await batchTime(fns[index] as Run, plan.runs)
      if (batch < WARMUP_BATCHES) continue
      samples[index]?.push(time.wall)
      cpu[index]?.push(time.cpu)
      thread[index]?.push(time.thread)
    }
  }
  return samples.map((wall, index) => sampled(wall, cpu[index], thread[index]))
}

/** Differences round by round (each round times the value and its baseline one after the other). */
export function pairedDifferences(value: Sampled, baseline: Sampled): number[] {
  return value.samples.map((time, index) => time - (baseline.samples[index] ?? 0))
}
