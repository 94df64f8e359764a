import { createPlanCompiler } from '@plan/core'
import { type Row, round, roundSpread, timeRuns } from './measure.ts'

/**
 * A policy `pattern` with nested quantifiers, `(a+)+b`, against values built to make a
 * backtracking engine explode; the check must stay linear (flat time per KB).
 */
export async function patternSuite(): Promise<Row[]> {
  const rows: Row[] = []
  const compiler = await createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: { tag: { args: { name: { type: 'string', pattern: '(a+)+b', maxLength: 200_000 } } } },
  })
  const benign = /^[a-z]+$/u
  for (const kilobytes of [1, 10, 100]) {
    const value = `${'a'.repeat(kilobytes * 1024 - 1)}!`
    const runs = kilobytes >= 100 ? 5 : 11
    const check = timeRuns(() => {
      if (compiler.checkArguments('tag', { name: value }).length === 0)
        throw new Error('bench value accepted')
    }, runs)
    const native = timeRuns(() => benign.test(value), runs)
    rows.push({
      suite: 'pattern',
      case: `policy pattern (a+)+b vs ${kilobytes} KB of "aaa…!" (${round(check.median / kilobytes)} ms/KB)`,
      value: round(check.median),
      valueSpread: roundSpread(check),
      unit: 'ms',
      baseline: 'native RegExp ^[a-z]+$ on the same value',
      baselineValue: round(native.median),
      baselineSpread: roundSpread(native),
      ratio: round(check.median / native.median),
      target: 'flat ms/KB (a backtracking engine needs 14 s for 28 characters)',
    })
  }
  return rows
}
