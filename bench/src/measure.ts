import { performance } from 'node:perf_hooks'

/** One line of the results table: a measurement next to its baseline from the same run. */
export interface Row {
  readonly suite: string
  readonly case: string
  readonly value: number
  readonly unit: string
  readonly baseline: string
  readonly baselineValue: number | null
  /** value / baselineValue, when both are times (lower is better). */
  readonly ratio: number | null
  readonly target?: string
  readonly note?: string
}

/** Median time of `fn` in milliseconds over `runs` runs, after `warmup` unmeasured runs. */
export function timeMedian(fn: () => unknown, runs = 7, warmup = 2): number {
  for (let index = 0; index < warmup; index += 1) fn()
  const times: number[] = []
  for (let index = 0; index < runs; index += 1) {
    const start = performance.now()
    fn()
    times.push(performance.now() - start)
  }
  times.sort((left, right) => left - right)
  return times[Math.floor(times.length / 2)] as number
}

/** Median async time in milliseconds. */
export async function timeMedianAsync(
  fn: () => Promise<unknown>,
  runs = 5,
  warmup = 1,
): Promise<number> {
  for (let index = 0; index < warmup; index += 1) await fn()
  const times: number[] = []
  for (let index = 0; index < runs; index += 1) {
    const start = performance.now()
    await fn()
    times.push(performance.now() - start)
  }
  times.sort((left, right) => left - right)
  return times[Math.floor(times.length / 2)] as number
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
