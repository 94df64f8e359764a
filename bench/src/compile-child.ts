import { createPlanCompiler } from '@plan/core'
import { benchPolicy, localPlan, realisticPlan } from './plans.ts'

// One arm of the compile rows in a fresh process, so that each arm pays for collecting its own
// garbage and for nothing another arm left. Arguments: arm (`parse`, `text` for validateText,
// `object` for validate(JSON.parse(text)), `steps` for validateText with `plan.steps` read,
// `local` for validateText of the plan with local dependencies, `floor` for the resolve floor
// below), steps, calls per sample, samples. Prints the milliseconds per call of every sample.
const [arm, sizeText, repeatText, samplesText] = process.argv.slice(2)
const size = Number(sizeText)
const repeat = Number(repeatText)
const samples = Number(samplesText)
const compiler = await createPlanCompiler({
  ...benchPolicy,
  budgets: { maxSteps: 2_000_000, maxDepth: 2_000_000, maxFanOut: 2_000_000 },
})
const text = JSON.stringify(arm === 'local' ? localPlan(size) : realisticPlan(size))

/** Throws when the bench plan is not approved: a rejected plan would be timed for nothing. */
function approved(result: ReturnType<typeof compiler.validate>): void {
  if (!result.success) throw new Error(`bench plan rejected: ${result.issues[0]?.message}`)
  // The hash is computed at its first read: read it, so the time includes hashing.
  if (result.plan.hash.length !== 64) throw new Error('bench plan has no hash')
}

/**
 * The least any validator of the plan does beyond reading it: index the step ids in a Map and
 * resolve every dependency to its step (with each step's level). No policy, no arguments, no
 * issues, no hash: a floor, not a competitor.
 */
function resolveFloor(): number {
  const { steps } = JSON.parse(text) as { steps: { id: string; depends_on: string[] }[] }
  const index = new Map<string, number>()
  for (let row = 0; row < steps.length; row += 1) index.set((steps[row] as { id: string }).id, row)
  const level = new Int32Array(steps.length)
  for (let row = 0; row < steps.length; row += 1) {
    let own = 0
    for (const id of (steps[row] as { depends_on: string[] }).depends_on)
      own = Math.max(own, (level[index.get(id) as number] as number) + 1)
    level[row] = own
  }
  return level[steps.length - 1] as number
}

const calls: Record<string, () => void> = {
  parse: () => JSON.parse(text),
  floor: () => resolveFloor(),
  steps: () => {
    const result = compiler.validateText(text)
    approved(result)
    // The step objects are made at their first read, as a guard or executor reads them.
    if (result.success && result.plan.steps.length !== size) throw new Error('steps missing')
  },
  text: () => approved(compiler.validateText(text)),
  local: () => approved(compiler.validateText(text)),
  object: () => approved(compiler.validate(JSON.parse(text))),
}
const call = calls[arm as string]
if (call === undefined) throw new Error(`unknown arm ${arm}`)

// Time the steady state: let the JIT settle on another plan first, then on this one.
const warmup = JSON.stringify(realisticPlan(10_000, 2))
for (let index = 0; index < 5; index += 1) {
  compiler.validate(JSON.parse(warmup))
  compiler.validateText(warmup)
}
for (let index = 0; index < repeat; index += 1) call()

const times: number[] = []
for (let sample = 0; sample < samples; sample += 1) {
  const start = performance.now()
  for (let index = 0; index < repeat; index += 1) call()
  times.push((performance.now() - start) / repeat)
}
process.stdout.write(JSON.stringify(times))
