import type { PlanIssue } from '@plan/core'
import type { StepMark } from '@plan/render'
import type { StoppedCall } from './scenario.js'

/** A tool call an agent proposed, and what the guard decided about it. */
export interface Proposal {
  readonly id: string
  readonly tool: string
  readonly args: unknown
  allowed: boolean | undefined
  issues: readonly PlanIssue[]
}

/**
 * An issue's path moved from the plan it was found in (a turn's own batch of calls, where the
 * call may be `steps[0]`) onto the call's place in the drawn plan, so that the path and the
 * step id name the same step.
 */
function relocated(path: readonly (string | number)[], index: number): (string | number)[] {
  if (path[0] === 'steps' && typeof path[1] === 'number') return [index, ...path.slice(2)]
  if (typeof path[0] === 'number') return [index, ...path.slice(1)]
  return [...path]
}

/** The proposals as a plan to draw, with each call's mark and the issues of the stopped ones. */
export function summarize(proposals: readonly Proposal[]) {
  const status: Record<string, StepMark> = {}
  const issues: PlanIssue[] = []
  const stopped: StoppedCall[] = []
  for (const [index, proposal] of proposals.entries()) {
    const allowed = proposal.allowed === true
    status[proposal.id] = allowed ? 'done' : 'denied'
    if (allowed) continue
    const own = proposal.issues.filter(
      (found) => found.stepId === undefined || found.stepId === proposal.id,
    )
    const shown = own.length > 0 ? own : proposal.issues
    for (const found of shown)
      issues.push({ ...found, stepId: proposal.id, path: relocated(found.path, index) })
    const first = shown[0]
    stopped.push({
      tool: proposal.tool,
      args: proposal.args,
      code: first?.code ?? 'denied',
      message: first?.message ?? 'denied by the guard',
    })
  }
  const plan = proposals.map((proposal) => ({
    id: proposal.id,
    tool: proposal.tool,
    args: proposal.args,
  }))
  return { plan, status, issues, stopped }
}
