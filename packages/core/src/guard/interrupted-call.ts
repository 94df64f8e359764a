import type { PlanIssue } from '@plan/shell/common'
import { runIssue } from '../util/run-issue.js'

/** The issue of a call that a crash (or a kill) interrupted: it may or may not have had effects. */
export function interruptedCallIssue(stepId: string, tool: string): PlanIssue {
  return runIssue(
    'interrupted_call',
    `Step ${JSON.stringify(stepId)} (${JSON.stringify(tool)}) started before the run was interrupted and never finished; it may or may not have taken effect, so it is not run again.`,
    'Check whether its effect happened (e.g. look at the files it would write) before going on; a human can approve running it again.',
    stepId,
  )
}
