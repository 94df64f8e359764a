import { createPlanCompiler } from '@plan/core'
import { benchPolicy, realisticPlan } from './plans.ts'

// Runs in its own process so its peak RSS is its own: `parse` is the baseline, `compile` (an
// object plan) and `text` (the plan's JSON text, parsed by `validateText`) the subjects.
const [mode, sizeText] = process.argv.slice(2)
const size = Number(sizeText)
const compiler = await createPlanCompiler({
  ...benchPolicy,
  budgets: { maxSteps: 2_000_000, maxDepth: 2_000_000, maxFanOut: 2_000_000 },
})
const text = JSON.stringify(realisticPlan(size))
let approved = true
let steps = 0
if (mode === 'text') {
  const result = compiler.validateText(text)
  // The hash is computed at its first read: read it, so the peak includes hashing.
  approved = result.success && result.plan.hash.length === 64
  steps = result.success ? result.plan.steps.length : 0
} else {
  const plan = JSON.parse(text)
  steps = plan.steps.length
  if (mode === 'compile') {
    const result = compiler.validate(plan)
    approved = result.success && result.plan.hash.length === 64
  }
}
process.stdout.write(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS, approved, steps }))
