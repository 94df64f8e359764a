import { mkdir, writeFile } from 'node:fs/promises'
import { cpus, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import type { Row, Spread } from './measure.ts'
import { coldStartSuite } from './suite-cold-start.ts'
import { commandSuite } from './suite-command.ts'
import { compileSuite } from './suite-compile.ts'
import { durableSuite } from './suite-durable.ts'
import { executorSuite } from './suite-executor.ts'
import { frameworksSuite } from './suite-frameworks.ts'
import { graphSuite } from './suite-graph.ts'
import { mcpSuite } from './suite-mcp.ts'
import { memorySuite } from './suite-memory.ts'
import { patternSuite } from './suite-pattern.ts'
import { sandboxSuite } from './suite-sandbox.ts'

const suites: [string, () => Promise<Row[]>][] = [
  ['compile', compileSuite],
  ['graph', graphSuite],
  ['command', commandSuite],
  ['executor', executorSuite],
  ['frameworks', frameworksSuite],
  ['mcp', mcpSuite],
  ['memory', memorySuite],
  ['pattern', patternSuite],
  ['cold-start', coldStartSuite],
  ['sandbox', sandboxSuite],
  ['durable', durableSuite],
]

const only = process.argv.slice(2)
const rows: Row[] = []
const started = Date.now()
for (const [name, suite] of suites) {
  if (only.length > 0 && !only.includes(name)) continue
  const suiteStart = Date.now()
  process.stderr.write(`bench: ${name}…`)
  rows.push(...(await suite()))
  process.stderr.write(` ${((Date.now() - suiteStart) / 1000).toFixed(1)} s\n`)
}

const cpu = cpus()
const machine = `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}-${process.arch}`
const format = (value: number | null) => (value === null ? '—' : String(value))
const cell = (value: number | null, spread: Spread | undefined, unit: string) =>
  value === null
    ? '—'
    : spread === undefined
      ? `${format(value)} ${unit}`
      : `${spread.min} / **${spread.median}** / ${spread.max} ${unit}`
const lines = [
  `Measured ${new Date().toISOString().slice(0, 10)} on ${machine}; total ${((Date.now() - started) / 1000).toFixed(0)} s.`,
  'Timed values are min / **median** / max over the runs; the ratio is median over median.',
  '',
  '| suite | case | value (min / median / max) | baseline (same run) | baseline value (min / median / max) | ratio | target |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...rows.map(
    (row) =>
      `| ${row.suite} | ${row.case} | ${cell(row.value, row.valueSpread, row.unit)} | ${row.baseline} | ${cell(row.baselineValue, row.baselineSpread, row.unit)} | ${row.ratio === null ? '—' : `${row.ratio}×`} | ${row.target ?? ''}${row.note === undefined ? '' : ` ${row.note}`} |`,
  ),
]
const table = lines.join('\n')
const resultsDir = fileURLToPath(new URL('../results/', import.meta.url))
await mkdir(resultsDir, { recursive: true })
await writeFile(`${resultsDir}latest.md`, `${table}\n`)
await writeFile(
  `${resultsDir}latest.json`,
  `${JSON.stringify({ machine, date: new Date().toISOString(), rows }, null, 2)}\n`,
)
process.stdout.write(`${table}\n`)
