import { isPlainObject } from '@plan/json'
import { createIssue, describe, type PlanIssue } from '@plan/shell/common'
import type { Path } from './argument-walk.js'
import { quote } from './step-path.js'

/**
 * A plan's steps array (the plan's own, which a validation that owns the plan may clear as it
 * reads) and its path inside the plan (`["steps"]`, or `[]` for a bare array).
 */
export interface PlanSteps {
  readonly steps: unknown[]
  readonly base: Path
}

const STEPS_HINT = 'A plan is { "steps": [ { "id", "tool", "args", "depends_on" } ] }.'

/** Reports the keys of a `{ steps, goal? }` plan object other than those two. */
function reportPlanKeys(plan: Record<string, unknown>, issues: PlanIssue[]): void {
  for (const key of Object.keys(plan)) {
    if (key !== 'steps' && key !== 'goal') {
      const message = `Unknown plan key ${quote(key)}.`
      const hint = 'A plan is { "steps": [...] } (an optional "goal" is allowed).'
      issues.push(createIssue('invalid_plan', message, [key], hint))
    }
  }
}

/** The steps to read; undefined (and reported) unless a non-empty array within the budget. */
function stepList(
  steps: unknown,
  base: Path,
  maxSteps: number,
  issues: PlanIssue[],
): PlanSteps | undefined {
  if (!Array.isArray(steps)) {
    const message = `"steps" must be an array, got ${describe(steps)}.`
    issues.push(createIssue('invalid_plan', message, base))
    return undefined
  }
  if (steps.length === 0) {
    issues.push(
      createIssue('invalid_plan', 'The plan has no steps.', base, 'Add at least one step.'),
    )
    return undefined
  }
  if (steps.length > maxSteps) {
    // Answer before looking at any step, so a huge plan costs nothing more.
    issues.push(
      createIssue(
        'budget_exceeded',
        `The plan has ${steps.length} steps; the policy allows at most ${maxSteps}.`,
        base,
        `Split the work into plans of at most ${maxSteps} steps.`,
      ),
    )
    return undefined
  }
  return { steps, base }
}

/**
 * The steps of a plan (`{ steps: [...] }` or a bare array), or undefined when there are none
 * to read: not a plan, no steps, or more than `maxSteps`. Every problem goes into `issues`.
 */
export function readPlanSteps(
  plan: unknown,
  maxSteps: number,
  issues: PlanIssue[],
): PlanSteps | undefined {
  if (Array.isArray(plan)) return stepList(plan, [], maxSteps, issues)
  if (!isPlainObject(plan)) {
    const message = `A plan must be an object with "steps" or an array of steps, got ${describe(plan)}.`
    const hint = 'Send { "steps": [ { "id", "tool", "args", "depends_on" } ] }.'
    issues.push(createIssue('invalid_plan', message, [], hint))
    return undefined
  }
  reportPlanKeys(plan, issues)
  if (!Object.hasOwn(plan, 'steps')) {
    issues.push(createIssue('invalid_plan', 'The plan has no "steps".', [], STEPS_HINT))
    return undefined
  }
  const steps = plan.steps
  if (plan.goal !== undefined && typeof plan.goal !== 'string')
    issues.push(createIssue('invalid_plan', 'The plan goal must be a string.', ['goal']))
  return stepList(steps, ['steps'], maxSteps, issues)
}
