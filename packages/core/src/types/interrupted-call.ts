import type { PlanIssue } from '@plan/shell/common'

/** A call that started before the run was restored and whose end was never recorded. */
export interface InterruptedCall {
  readonly stepId: string
  readonly tool: string
  /** Why it does not run again by itself (`interrupted_call`). */
  readonly issue: PlanIssue
}
