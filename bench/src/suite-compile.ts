import { createPlanCompiler, type PlanValidationResult } from '@plan/core'
import { type Row, round, roundSpread, type Spread, spreadOf } from './measure.ts'
import { benchPolicy, realisticPlan } from './plans.ts'

// Steps per timed sample: a sample of 1k steps repeats the work 50 times, so a collection that
// happens to fall in one sample is spread over many plans, as it is in a long-running process.
const STEPS_PER_SAMPLE = 50_000

/** Milliseconds per call of `fn`, over one sample of `repeat` calls. */
function sample(fn: () => void, repeat: number): number {
  const start = performance.now()
  for (let index = 0; index < repeat; index += 1) fn()
  return (performance.now() - start) / repeat
}

/**
 * Spreads of each of `runs`, their samples taken in turns so all see the same machine; `before`,
 * when given, runs untimed before every sample of every run.
 */
function interleaved(
  runs: readonly (() => void)[],
  size: number,
  samples: number,
  before?: () => void,
): Spread[] {
  const repeat = Math.max(1, Math.round(STEPS_PER_SAMPLE / size))
  for (const run of runs) sample(run, repeat)
  const times: number[][] = runs.map(() => [])
  for (let index = 0; index < samples; index += 1) {
    for (let position = 0; position < runs.length; position += 1) {
      before?.()
      times[position]?.push(sample(runs[position] as () => void, repeat))
    }
  }
  return times.map(spreadOf)
}

/** A minor collection (the young generation only), when the process runs with `--expose-gc`. */
function minorCollection(): (() => void) | undefined {
  const gc = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc
  return gc === undefined ? undefined : () => gc({ type: 'minor' })
}

/**
 * The note on the runs at a size where a sample is a single compile: timed again with a minor
 * collection before every sample of every run, so that no sample pays for collecting the young
 * garbage the run before it left.
 */
function collectedNote(
  runs: readonly (() => void)[],
  size: number,
  samples: number,
  first: { size: number; compile: number; parse: number },
): string {
  const collect = minorCollection()
  if (collect === undefined || size < STEPS_PER_SAMPLE) return ''
  const [parse, compile] = interleaved(runs.slice(0, 2), size, samples, collect) as [Spread, Spread]
  const perStep = { compile: compile.median / size, parse: parse.median / size }
  return `; with a minor collection before every sample of both runs: ${round(compile.median)} ms, ${round(compile.median / parse.median)}×, ${flatness(perStep, first)}`
}

/**
 * Throws when the bench plan is not approved: a rejected plan would be timed for nothing. Reads
 * the plan's hash, computed at its first read, so the time includes it.
 */
function approved(result: PlanValidationResult): void {
  if (!result.success) throw new Error(`bench plan rejected: ${result.issues[0]?.message}`)
  if (result.plan.hash.length !== 64) throw new Error('bench plan has no hash')
}

/** µs per step against the smallest plan's, for the compile and for `JSON.parse` alone. */
function flatness(
  perStep: { compile: number; parse: number },
  first: { size: number; compile: number; parse: number },
): string {
  const compile = round(perStep.compile / first.compile)
  const parse = round(perStep.parse / first.parse)
  return `µs/step ${compile}× that at ${first.size.toLocaleString('en')} steps (JSON.parse alone: ${parse}×)`
}

/**
 * Full validation + compile of a plan's JSON text (`validateText`, which parses it) against
 * `JSON.parse` of the same text; `validate(JSON.parse(text))`, for a plan that is already an
 * object, is timed in the same turns and given in the note.
 */
export async function compileSuite(): Promise<Row[]> {
  const rows: Row[] = []
  const compiler = await createPlanCompiler({
    ...benchPolicy,
    budgets: { maxSteps: 2_000_000, maxDepth: 2_000_000, maxFanOut: 2_000_000 },
  })
  // Time the steady state: let the JIT settle on another plan before anything is measured.
  const warmup = JSON.stringify(realisticPlan(10_000, 2))
  for (let index = 0; index < 5; index += 1) {
    compiler.validate(JSON.parse(warmup))
    compiler.validateText(warmup)
  }
  let first: { size: number; compile: number; parse: number } | undefined
  for (const size of [1_000, 10_000, 100_000]) {
    const text = JSON.stringify(realisticPlan(size))
    const runs = [
      () => JSON.parse(text),
      () => approved(compiler.validateText(text)),
      () => approved(compiler.validate(JSON.parse(text))),
    ]
    const samples = size >= 100_000 ? 7 : 11
    const [parse, compile, object] = interleaved(runs, size, samples) as [Spread, Spread, Spread]
    const perStep = { size, compile: compile.median / size, parse: parse.median / size }
    first ??= perStep
    const collected = collectedNote(runs, size, samples, first)
    const objectPath = `validate(JSON.parse(text)): ${round(object.median)} ms, ${round(object.median / parse.median)}×`
    rows.push({
      suite: 'compile',
      case: `JSON text → compiled plan (validateText: parse + validate + compile + hash), ${size.toLocaleString('en')} steps (${round(perStep.compile * 1000)} µs/step; samples of ${STEPS_PER_SAMPLE.toLocaleString('en')} steps)`,
      value: round(compile.median),
      valueSpread: roundSpread(compile),
      unit: 'ms',
      baseline: 'JSON.parse of the same text',
      baselineValue: round(parse.median),
      baselineSpread: roundSpread(parse),
      ratio: round(compile.median / parse.median),
      target: '≤ 3× JSON.parse (incl. the parse), flat µs/step',
      note:
        perStep === first ? objectPath : `${flatness(perStep, first)}; ${objectPath}${collected}`,
    })
  }
  return rows
}
