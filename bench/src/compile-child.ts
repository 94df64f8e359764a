import { createPlanCompiler } from '@plan/core'
import { benchPolicy, realisticPlan } from './plans.ts'

// One arm of the compile rows in a fresh process, so that each arm pays for collecting its own
// garbage and for nothing another arm left. Arguments: arm (`parse`, `text` for validateText,
// `object` for validate(JSON.parse(text))), steps, calls per sample, samples. Prints the
// milliseconds per call of every sample.
const [arm, sizeText, repeatText, samplesText] = process.argv.slice(2)
const size = Number(sizeText)
const repeat = Number(repeatText)
const samples = Number(samplesText)
const compiler = await createPlanCompiler({
  ...benchPolicy,
  budgets: { maxSteps: 2_000_000, maxDepth: 2_000_000, maxFanOut: 2_000_000 },
})
const text = JSON.stringify(realisticPlan(size))

/** Throws when the bench plan is not approved: a rejected plan would be timed for nothing. */
function approved(result: ReturnType<typeof compiler.validate>): void {
  if (!result.success) throw new Error(`bench plan rejected: ${result.issues[0]?.message}`)
  // The hash is computed at its first read: read it, so the time includes hashing.
  if (result.plan.hash.length !== 64) throw new Error('bench plan has no hash')
}

const calls: Record<string, () => void> = {
  parse: () => JSON.parse(text),
  text: () => approved(compiler.validateText(text)),
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
