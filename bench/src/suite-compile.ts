import { createPlanCompiler } from '@plan/core'
import { type Row, round, roundSpread, timeRuns } from './measure.ts'
import { benchPolicy, realisticPlan } from './plans.ts'

/** Full validation + compile against `JSON.parse` of the same plan text. */
export async function compileSuite(): Promise<Row[]> {
  const rows: Row[] = []
  const compiler = await createPlanCompiler({
    ...benchPolicy,
    budgets: { maxSteps: 2_000_000, maxDepth: 2_000_000, maxFanOut: 2_000_000 },
  })
  // Time the steady state: let the JIT settle on another plan before anything is measured.
  const warmup = JSON.stringify(realisticPlan(10_000, 2))
  for (let index = 0; index < 5; index += 1) compiler.validate(JSON.parse(warmup))
  for (const size of [1_000, 10_000, 100_000]) {
    const text = JSON.stringify(realisticPlan(size))
    const runs = size >= 100_000 ? 5 : size >= 10_000 ? 9 : 21
    const parse = timeRuns(() => JSON.parse(text), runs)
    const compile = timeRuns(() => {
      const result = compiler.validate(JSON.parse(text))
      if (!result.success) throw new Error(`bench plan rejected: ${result.issues[0]?.message}`)
    }, runs)
    rows.push({
      suite: 'compile',
      case: `parse + validate + compile + hash, ${size.toLocaleString('en')} steps (${round((compile.median / size) * 1000)} µs/step)`,
      value: round(compile.median),
      valueSpread: roundSpread(compile),
      unit: 'ms',
      baseline: 'JSON.parse of the same text',
      baselineValue: round(parse.median),
      baselineSpread: roundSpread(parse),
      ratio: round(compile.median / parse.median),
      target: '≤ 3× JSON.parse (incl. the parse), flat µs/step',
    })
  }
  return rows
}
