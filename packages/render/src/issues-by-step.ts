import type { PlanIssue } from '@plan/core'

/** Issues of a plan sorted onto the steps they concern, for rendering. */
export interface IssuesByStep {
  /** Issues per step index (position in the plan's step list). */
  readonly byIndex: ReadonlyMap<number, readonly PlanIssue[]>
  /** Issues that belong to no step. */
  readonly planIssues: readonly PlanIssue[]
  /** Ids of every step on a reported cycle. */
  readonly onCycle: ReadonlySet<string>
}

// `["steps", 3, …]` for a plan object, `[3, …]` for a bare array of steps.
function stepIndexOf(path: readonly (string | number)[]): number | undefined {
  const index = path[0] === 'steps' ? path[1] : path[0]
  return typeof index === 'number' && Number.isInteger(index) && index >= 0 ? index : undefined
}

/**
 * The step an issue belongs to: the one its path points into when that step has the issue's
 * `stepId` (or the issue has none), so a `duplicate_step_id` lands on the second step with that
 * id; otherwise the first step with its `stepId` (a path found in another plan, such as one
 * turn's batch of calls, must not move the issue onto a different step); otherwise the path's.
 */
function stepIndexFor(
  found: PlanIssue,
  stepIds: readonly string[],
  firstIndex: ReadonlyMap<string, number>,
): number | undefined {
  const fromPath = stepIndexOf(found.path)
  const pathIndex = fromPath !== undefined && fromPath < stepIds.length ? fromPath : undefined
  if (found.stepId === undefined) return pathIndex
  if (pathIndex !== undefined && stepIds[pathIndex] === found.stepId) return pathIndex
  return firstIndex.get(found.stepId) ?? pathIndex
}

/**
 * Puts each issue under the step it concerns (see {@link stepIndexFor}) and collects every member of every cycle so that all of them can be marked.
 */
export function issuesByStep(
  issues: readonly PlanIssue[],
  stepIds: readonly string[],
): IssuesByStep {
  const firstIndex = new Map<string, number>()
  stepIds.forEach((id, index) => {
    if (!firstIndex.has(id)) firstIndex.set(id, index)
  })
  const byIndex = new Map<number, PlanIssue[]>()
  const planIssues: PlanIssue[] = []
  const onCycle = new Set<string>()
  for (const found of issues) {
    for (const id of found.cycle ?? []) onCycle.add(id)
    const index = stepIndexFor(found, stepIds, firstIndex)
    if (index === undefined) planIssues.push(found)
    else byIndex.set(index, [...(byIndex.get(index) ?? []), found])
  }
  return { byIndex, planIssues, onCycle }
}
