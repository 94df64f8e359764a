import type { PlanCompiler, PlanGuard, PlanIssue } from '@plan/core'
import { canonicalJson, formatPath } from '@plan/core/internal'

const MAX_ARGUMENT_TEXT = 300
const MAX_LISTED_STEPS = 10

function shorten(text: string, limit = MAX_ARGUMENT_TEXT): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text
}

/** Drops the `steps[i]` prefix of an issue found in a turn's plan, so the path reads `args.file`. */
function callPath(path: readonly (string | number)[]): readonly (string | number)[] {
  return path[0] === 'steps' && typeof path[1] === 'number' ? path.slice(2) : path
}

/** One line per issue, for the model: `- code at args.file: message Hint: hint`. */
export function describeIssues(issues: readonly PlanIssue[]): string {
  return issues
    .map((issue) => {
      const path = callPath(issue.path)
      const where = path.length === 0 ? '' : ` at ${formatPath(path)}`
      const hint = issue.hint === undefined ? '' : ` Hint: ${issue.hint}`
      return `- ${issue.code}${where}: ${issue.message}${hint}`
    })
    .join('\n')
}

/** The ready steps of the approved plan, with the exact arguments each must be called with. */
export function describeReadySteps(guard: PlanGuard): string {
  const ready = guard.readySteps()
  if (ready.length === 0) {
    return guard.isComplete()
      ? 'Every step of the approved plan has finished; no more tool calls are needed.'
      : 'No step of the approved plan is ready now.'
  }
  const lines = ready.slice(0, MAX_LISTED_STEPS).map((step) => {
    const resolved = guard.resolveArgs(step.id)
    const args = resolved.success ? canonicalJson(resolved.args) : canonicalJson(step.args)
    return `- step ${JSON.stringify(step.id)}: ${step.tool} ${shorten(args)}`
  })
  if (ready.length > MAX_LISTED_STEPS) lines.push(`- … and ${ready.length - MAX_LISTED_STEPS} more`)
  return `Ready steps of the approved plan (call each tool with exactly these arguments):\n${lines.join('\n')}`
}

/** What the policy allows, in one paragraph, for per-turn mode. */
export function describePolicy(compiler: PlanCompiler): string {
  const { policy, scope } = compiler.policy
  const tools = [...compiler.policy.tools.keys()]
  const parts = [
    tools.length === 0 ? 'no tools' : `the tools ${tools.join(', ')}`,
    `paths inside ${scope.roots.join(', ')}`,
  ]
  if (policy.commands.allow.length > 0) {
    parts.push(
      `single commands (no pipes, lists or redirections) of ${policy.commands.allow.join(', ')}`,
    )
  }
  return `Allowed: ${parts.join('; ')}.`
}

/** The text of an error ToolMessage for a call that did not run. */
export function denialText(tool: string, issues: readonly PlanIssue[], allowed: string): string {
  const tail = allowed === '' ? '' : `\n${allowed}`
  return `@plan blocked this call to ${JSON.stringify(tool)}; it did not run.\n${describeIssues(issues)}${tail}`
}

/** The text shown when the guard ends the run. */
export function endText(issues: readonly PlanIssue[]): string {
  return `@plan ended the run: no further tool call will run.\n${describeIssues(issues)}`
}

/** What the model reads on its last call after the guard stopped the run. */
export function lastWordText(issues: readonly PlanIssue[]): string {
  return `@plan stopped this run; no tool will run any more.\n${describeIssues(issues)}\nTell the user what was done, what is left, and why the run stopped.`
}
