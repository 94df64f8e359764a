import { AIMessage, type BaseMessage } from '@langchain/core/messages'
import { PlanCompilationError, type PlanIssue } from '@plan/core'
import { hashJson } from '@plan/core/adapter'
import { type LangChainToolCall, stepsFromToolCalls } from '../convert/steps-from-tool-calls.js'
import type { GuardConfig } from './guard-config.js'
import { type RunContext, setExit, stopIssue } from './run-context.js'

/** An issue of a live call, with no location. */
export function callIssue(code: PlanIssue['code'], message: string, hint: string): PlanIssue {
  return { code, message, path: [], hint }
}

/** Splits the issues of a rejected turn by tool call; turn-wide issues go to every call. */
function issuesPerCall(
  issues: readonly PlanIssue[],
  stepIds: readonly string[],
  index: number,
): readonly PlanIssue[] {
  const stepIndex = (issue: PlanIssue) =>
    issue.path[0] === 'steps' && typeof issue.path[1] === 'number' ? issue.path[1] : undefined
  const own = issues.filter(
    (issue) => issue.stepId === stepIds[index] || stepIndex(issue) === index,
  )
  const turnWide = issues.filter(
    (issue) => issue.stepId === undefined && stepIndex(issue) === undefined,
  )
  if (own.length + turnWide.length > 0) return [...own, ...turnWide]
  return [
    callIssue(
      'invalid_plan',
      'This call came in the same turn as calls that were rejected; a turn is checked as one plan, so none of its calls ran.',
      'Send this call again without the rejected ones.',
    ),
  ]
}

/** Identifies a turn's calls: the message id and every call's id, tool and arguments. */
function turnKeyOf(messageId: string | undefined, calls: readonly LangChainToolCall[]): string {
  try {
    return hashJson([
      messageId ?? null,
      calls.map((call) => [call.id ?? null, call.name, call.args]),
    ])
  } catch {
    return 'unhashable'
  }
}

/** Records why each call of a rejected turn was rejected, and ends the run when it must. */
function rejectTurn(
  config: GuardConfig,
  run: RunContext,
  calls: readonly LangChainToolCall[],
  stepIds: readonly string[],
  issues: readonly PlanIssue[],
): void {
  let perCall = (index: number) => issuesPerCall(issues, stepIds, index)
  const stop = stopIssue(run)
  if (stop !== undefined) {
    perCall = () => [stop]
    setExit(run, [stop])
  } else if (config.exitBehavior !== 'continue') {
    setExit(run, issues, new PlanCompilationError(issues))
  }
  calls.forEach((call, index) => {
    if (call.id !== undefined) run.rejected.set(call.id, perCall(index))
  })
}

/**
 * Per-turn mode: checks the current turn's calls (the last AI message) as one plan, once per
 * turn. A turn is new when the model answered since, or when the calls differ from the last
 * checked ones (another middleware's `afterModel` may have edited them).
 */
export function checkTurn(
  config: GuardConfig,
  run: RunContext,
  messages: readonly BaseMessage[],
): void {
  const last = messages.findLast((message) => AIMessage.isInstance(message))
  const calls: readonly LangChainToolCall[] =
    last !== undefined && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : []
  const key = turnKeyOf(last?.id, calls)
  if (run.submittedTurn === run.turn && run.submittedKey === key) return
  run.submittedTurn = run.turn
  run.submittedKey = key
  run.turnSteps = new Map()
  run.rejected = new Map()
  if (calls.length === 0) return
  const steps = stepsFromToolCalls({ tool_calls: calls })
  const stepIds = steps.map((step) => step.id)
  const result = run.guard.submitPlan({ steps }, 'turn')
  config.report({
    kind: 'turn',
    allowed: result.success,
    callIds: calls.map((call) => call.id ?? ''),
    issues: result.issues,
  })
  if (!result.success) {
    rejectTurn(config, run, calls, stepIds, result.issues)
    return
  }
  calls.forEach((call, index) => {
    if (call.id !== undefined) run.turnSteps.set(call.id, stepIds[index] as string)
  })
}
