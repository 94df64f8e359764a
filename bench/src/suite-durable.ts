import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { type Row, type Spread, spreadOf } from './measure.ts'

const run = promisify(execFile)
const child = fileURLToPath(new URL('./durable-child.ts', import.meta.url))

interface Measured {
  readonly ms?: number
  readonly bytes?: number
  readonly callUs?: number
  readonly stateBytes?: number
  readonly maxRssKb: number
  readonly peakHeapBytes: number
  readonly retainedHeapBytes?: number
}

async function measure(mode: 'execute' | 'bytes', size: number): Promise<Measured> {
  const { stdout } = await run(
    process.execPath,
    ['--max-old-space-size=16384', '--expose-gc', child, mode, String(size)],
    { maxBuffer: 1 << 20 },
  )
  return JSON.parse(stdout) as Measured
}

/** Runs per size: the 1M-step run takes about a minute, so it runs once per bench run. */
function runsFor(size: number): number {
  return size >= 1_000_000 ? 1 : 3
}

function row(name: string, spread: Spread, unit: string, note?: string): Row {
  const rounded = (value: number) => Number(value.toPrecision(3))
  const valueSpread = {
    min: rounded(spread.min),
    median: rounded(spread.median),
    max: rounded(spread.max),
  }
  return {
    suite: 'durable',
    case: name,
    value: valueSpread.median,
    valueSpread,
    unit,
    baseline: 'none (one process per run)',
    baselineValue: null,
    ratio: null,
    ...(note === undefined ? {} : { note }),
  }
}

async function samples(mode: 'execute' | 'bytes', size: number): Promise<Measured[]> {
  const results: Measured[] = []
  for (let index = 0; index < runsFor(size); index += 1) results.push(await measure(mode, size))
  return results
}

const spread = (results: readonly Measured[], pick: (result: Measured) => number) =>
  spreadOf(results.map(pick))

/**
 * A chain of no-op steps through compile, guard and executor (time, time per step, peak RSS
 * and peak heap, no store) at 1k, 100k and 1M steps; and the bytes one call writes to a store
 * that takes changes (its save before and after, as `saveGuardState` makes them) at step 1k
 * and 100k of such a run, with the size of the whole state for comparison.
 */
export async function durableSuite(): Promise<Row[]> {
  const rows: Row[] = []
  const perStepBySize = new Map<number, number>()
  for (const size of [1_000, 100_000, 1_000_000]) {
    const results = await samples('execute', size)
    const steps = size.toLocaleString('en')
    const once = runsFor(size) === 1 ? ' (one run per bench run)' : ''
    const perStep = spread(results, (result) => ((result.ms ?? 0) * 1000) / size)
    perStepBySize.set(size, perStep.median)
    const ratio = (base: number) =>
      (perStep.median / (perStepBySize.get(base) ?? perStep.median)).toFixed(2)
    // 1,000 steps is mostly start-up and compilation of the code itself: 100,000 is the fair base.
    const linear = `${ratio(1_000)}× the time per step at 1,000 steps, ${ratio(100_000)}× at 100,000`
    rows.push(
      row(
        `compile + guard + executor, ${steps} steps: time${once}`,
        spread(results, (result) => result.ms ?? 0),
        'ms',
      ),
    )
    rows.push(
      row(
        `compile + guard + executor, ${steps} steps: time per step${once}`,
        perStep,
        'µs',
        `${linear}; target ≤ 1.5×`,
      ),
    )
    rows.push(
      row(
        `compile + guard + executor, ${steps} steps: peak RSS${once}`,
        spread(results, (result) => result.maxRssKb / 1024),
        'MiB',
        size >= 1_000_000 ? 'target: under 1 GiB' : undefined,
      ),
    )
    rows.push(
      row(
        `compile + guard + executor, ${steps} steps: peak heap used${once}`,
        spread(results, (result) => result.peakHeapBytes / 2 ** 20),
        'MiB',
        'sampled every 20 ms',
      ),
    )
    rows.push(
      row(
        `compile + guard + executor, ${steps} steps: heap the plan and the result keep${once}`,
        spread(results, (result) => (result.retainedHeapBytes ?? 0) / 2 ** 20),
        'MiB',
        'after a full collection at the end of the run',
      ),
    )
  }
  for (const size of [1_000, 100_000]) {
    const results = await samples('bytes', size)
    const steps = size.toLocaleString('en')
    const state = spread(results, (result) => result.stateBytes ?? 0).median
    rows.push(
      row(
        `bytes written by one call at step ${steps} (store with saveChanges)`,
        spread(results, (result) => result.bytes ?? 0),
        'bytes',
        `its save before and after, as changes; the whole state is ${Math.round(state / 1024)} KiB`,
      ),
    )
    rows.push(
      row(
        `time of one call at step ${steps} with its two saves (memory store)`,
        spread(results, (result) => result.callUs ?? 0),
        'µs',
      ),
    )
  }
  return rows
}
