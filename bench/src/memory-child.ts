import { createPlanCompiler } from '@plan/core'
import { benchPolicy, realisticPlan } from './plans.ts'

// Runs in its own process so its peak RSS is its own: `parse` is the baseline, `compile` the subject.
const [mode, sizeText] = process.argv.slice(2)
const size = Number(sizeText)
const compiler = await createPlanCompiler({
  ...benchPolicy,
  budgets: { maxSteps: 2_000_000, maxDepth: 2_000_000, maxFanOut: 2_000_000 },
})
const text = JSON.stringify(realisticPlan(size))
const plan = JSON.parse(text)
let approved = true
if (mode === 'compile') approved = compiler.validate(plan).success
process.stdout.write(
  JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS, approved, steps: plan.steps.length }),
)
