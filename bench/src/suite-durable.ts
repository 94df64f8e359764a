import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Row } from './measure.ts'

const run = promisify(execFile)
const child = fileURLToPath(new URL('./durable-child.ts', import.meta.url))

async function measure(mode: 'execute' | 'bytes', size: number) {
  const { stdout } = await run(
    process.execPath,
    ['--max-old-space-size=16384', child, mode, String(size)],
    { maxBuffer: 1 << 20 },
  )
  return JSON.parse(stdout) as { ms?: number; bytes?: number; maxRssKb: number }
}

function row(name: string, value: number, unit: string, note?: string): Row {
  return {
    suite: 'durable',
    case: name,
    value: Math.round(value),
    unit,
    baseline: 'none (one process per size)',
    baselineValue: null,
    ratio: null,
    ...(note === undefined ? {} : { note }),
  }
}

/**
 * A chain of no-op steps through compile, guard and executor (time and peak RSS, no store) at
 * 1k, 100k and 1M steps; and the bytes one call writes to a store (the state saved before and
 * after it) at step 1k and 100k of such a run.
 */
export async function durableSuite(): Promise<Row[]> {
  const rows: Row[] = []
  for (const size of [1_000, 100_000, 1_000_000]) {
    const result = await measure('execute', size)
    const steps = size.toLocaleString('en')
    rows.push(row(`compile + guard + executor, ${steps} steps: time`, result.ms ?? 0, 'ms'))
    rows.push(
      row(
        `compile + guard + executor, ${steps} steps: peak RSS`,
        result.maxRssKb / 1024,
        'MiB',
        size >= 1_000_000 ? 'target: under 1 GiB, linear in steps' : undefined,
      ),
    )
  }
  for (const size of [1_000, 100_000]) {
    const result = await measure('bytes', size)
    rows.push(
      row(
        `bytes written by one call at step ${size.toLocaleString('en')}`,
        result.bytes ?? 0,
        'bytes',
        'the whole guard state, saved before and after the call',
      ),
    )
  }
  return rows
}
