import { performance } from 'node:perf_hooks'

/** Min, median and max over the measured runs. */
export interface Spread {
  readonly min: number
  readonly median: number
  readonly max: number
}

/** One line of the results table: a measurement next to its baseline from the same run. */
export interface Row {
  readonly suite: string
  readonly case: string
  /** The median, when the value was measured over several runs. */
  readonly value: number
  /** Min, median and max of `value`'s runs, when it had several. */
  readonly valueSpread?: Spread
  readonly unit: string
  readonly baseline: string
  readonly baselineValue: number | null
  /** Min, median and max of the baseline's runs, when it had several. */
  readonly baselineSpread?: Spread
  /** value / baselineValue, when both are times (lower is better). */
  readonly ratio: number | null
  readonly target?: string
  readonly note?: string
}

/** Min, median and max of some samples (at least one). */
export function spreadOf(samples: readonly number[]): Spread {
  const sorted = [...samples].sort((left, right) => left - right)
  return {
    min: sorted[0] as number,
    median: sorted[Math.floor(sorted.length / 2)] as number,
    max: sorted[sorted.length - 1] as number,
  }
}

/** Min, median and max of an async measurement repeated `runs` times (one sample per run). */
export async function repeatAsync(
  runs: number,
  measure: (run: number) => Promise<number>,
): Promise<Spread> {
  const samples: number[] = []
  for (let run = 0; run < runs; run += 1) samples.push(await measure(run))
  return spreadOf(samples)
}

/**
 * The value, baseline and ratio fields of a row measured over several runs: medians as the
 * values, spreads rounded for display, and the ratio median over median (omitted when
 * `ratio` is false, e.g. for rates where higher is better).
 */
export function spreadFields(
  value: Spread,
  baseline: Spread | null,
  ratio = true,
): Pick<Row, 'value' | 'valueSpread' | 'baselineValue' | 'baselineSpread' | 'ratio'> {
  return {
    value: round(value.median),
    valueSpread: roundSpread(value),
    baselineValue: baseline === null ? null : round(baseline.median),
    ...(baseline === null ? {} : { baselineSpread: roundSpread(baseline) }),
    ratio: ratio && baseline !== null ? round(value.median / baseline.median) : null,
  }
}

/** A spread with every value multiplied by `factor` (a total per batch into a time per item). */
export function scaleSpread(spread: Spread, factor: number): Spread {
  return { min: spread.min * factor, median: spread.median * factor, max: spread.max * factor }
}

/** A spread rounded for display. */
export function roundSpread(spread: Spread): Spread {
  return { min: round(spread.min), median: round(spread.median), max: round(spread.max) }
}

/** Times of `fn` in milliseconds over `runs` runs, after `warmup` unmeasured runs. */
export function timeRuns(fn: () => unknown, runs = 7, warmup = 2): Spread {
  for (let index = 0; index < warmup; index += 1) fn()
  const times: number[] = []
  for (let index = 0; index < runs; index += 1) {
    const start = performance.now()
    fn()
    times.push(performance.now() - start)
  }
  return spreadOf(times)
}

/** Async times in milliseconds over `runs` runs, after `warmup` unmeasured runs. */
export async function timeRunsAsync(
  fn: () => Promise<unknown>,
  runs = 5,
  warmup = 1,
): Promise<Spread> {
  for (let index = 0; index < warmup; index += 1) await fn()
  const times: number[] = []
  for (let index = 0; index < runs; index += 1) {
    const start = performance.now()
    await fn()
    times.push(performance.now() - start)
  }
  return spreadOf(times)
}

/** Median time of `fn` in milliseconds (see {@link timeRuns}). */
export function timeMedian(fn: () => unknown, runs = 7, warmup = 2): number {
  return timeRuns(fn, runs, warmup).median
}

/** Median async time in milliseconds (see {@link timeRunsAsync}). */
export async function timeMedianAsync(
  fn: () => Promise<unknown>,
  runs = 5,
  warmup = 1,
): Promise<number> {
  return (await timeRunsAsync(fn, runs, warmup)).median
}

/** A deterministic pseudo-random generator (mulberry32), so every run measures the same inputs. */
export function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

/** Rounds for display: 3 significant digits. */
export function round(value: number): number {
  return Number(value.toPrecision(3))
}
