import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { type Row, round } from './measure.ts'

const run = promisify(execFile)
const child = fileURLToPath(new URL('./memory-child.ts', import.meta.url))

async function peak(mode: 'parse' | 'compile', size: number): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    ['--max-old-space-size=16384', child, mode, String(size)],
    { maxBuffer: 1 << 20 },
  )
  const result = JSON.parse(stdout) as { maxRssKb: number; approved: boolean }
  if (!result.approved) throw new Error(`bench plan of ${size} steps rejected`)
  return result.maxRssKb / 1024
}

/** Peak RSS compiling 100k and 1M steps, against a process that only parses the same plan. */
export async function memorySuite(): Promise<Row[]> {
  const rows: Row[] = []
  for (const size of [100_000, 1_000_000]) {
    const parse = await peak('parse', size)
    const compile = await peak('compile', size)
    rows.push({
      suite: 'memory',
      case: `peak RSS, compile ${size.toLocaleString('en')} steps (raised maxSteps)`,
      value: round(compile),
      unit: 'MiB',
      baseline: 'peak RSS generating + JSON.parse of the same plan',
      baselineValue: round(parse),
      ratio: round(compile / parse),
    })
  }
  return rows
}
