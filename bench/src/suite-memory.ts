import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { type Row, round, spreadFields, spreadOf } from './measure.ts'

const run = promisify(execFile)
const child = fileURLToPath(new URL('./memory-child.ts', import.meta.url))

async function peak(mode: 'parse' | 'compile' | 'text', size: number): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    ['--max-old-space-size=16384', child, mode, String(size)],
    { maxBuffer: 1 << 20 },
  )
  const result = JSON.parse(stdout) as { maxRssKb: number; approved: boolean }
  if (!result.approved) throw new Error(`bench plan of ${size} steps rejected`)
  return result.maxRssKb / 1024
}

// Child processes per mode and size, taking turns: peak RSS moves with what else the machine does.
const RUNS = 3

/**
 * How far the median peak is above the parse baseline's, against the 1 GiB target at 1M steps;
 * with the peak of `validateText` on the plan's JSON text, when it was measured.
 */
function aboveBaseline(size: number, compile: number, parse: number, text?: number): Partial<Row> {
  const above = (compile - parse) / 1024
  let note = `${round(above)} GiB above the baseline (median − median)`
  if (size >= 1_000_000) note += `: ${above <= 1 ? 'met' : 'missed'}`
  if (text !== undefined)
    note += `; validateText(text): ${round(text)} MiB, ${round((text - parse) / 1024)} GiB above`
  return size < 1_000_000 ? { note } : { target: '≤ 1 GiB above the baseline', note }
}

/** Peak RSS compiling 100k and 1M steps, against a process that only parses the same plan. */
export async function memorySuite(): Promise<Row[]> {
  const rows: Row[] = []
  for (const size of [100_000, 1_000_000]) {
    const parses: number[] = []
    const compiles: number[] = []
    // The text path at the target's size only: each run of 1M steps takes seconds.
    const texts: number[] = []
    for (let run = 0; run < RUNS; run += 1) {
      parses.push(await peak('parse', size))
      compiles.push(await peak('compile', size))
      if (size >= 1_000_000) texts.push(await peak('text', size))
    }
    const fields = spreadFields(spreadOf(compiles), spreadOf(parses))
    const text = texts.length === 0 ? undefined : spreadOf(texts).median
    rows.push({
      suite: 'memory',
      case: `peak RSS, compile ${size.toLocaleString('en')} steps (raised maxSteps)`,
      unit: 'MiB',
      baseline: 'peak RSS generating + JSON.parse of the same plan',
      ...fields,
      ...aboveBaseline(size, fields.value, fields.baselineValue ?? 0, text),
    })
  }
  return rows
}
