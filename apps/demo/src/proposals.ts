import type { PlanIssue } from '@plan/core'
import type { StepMark } from '@plan/core/render'
import type { StoppedCall } from './scenario.js'

/** A tool call an agent proposed, and what the guard decided about it. */
export interface Proposal {
  readonly id: string
  readonly tool: string
  readonly args: unknown
  allowed: boolean | undefined
  issues: readonly PlanIssue[]
}

/** The proposals as a plan to draw, with each call's mark and the issues of the stopped ones. */
export function summarize(proposals: readonly Proposal[]) {
  const status: Record<string, StepMark> = {}
  const issues: PlanIssue[] = []
  const stopped: StoppedCall[] = []
  for (const proposal of proposals) {
    const allowed = proposal.allowed === true
    status[proposal.id] = allowed ? 'done' : 'denied'
    if (allowed) continue
    const own = proposal.issues.filter(
      (found) => found.stepId === undefined || found.stepId === proposal.id,
    )
    const shown = own.length > 0 ? own : proposal.issues
    for (const found of shown) issues.push({ ...found, stepId: proposal.id })
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
