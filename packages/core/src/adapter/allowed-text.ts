import { canonicalJson } from '@plan/json'
import { someOf } from '@plan/shell/common'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuard } from '../types/plan-guard.js'

const MAX_ARGUMENT_TEXT = 300
const MAX_LISTED_STEPS = 10
const MAX_LISTED_TOOLS = 6
const MAX_LISTED_PROGRAMS = 12

/** What {@link allowedText} describes: a guard's ready steps, or a compiler's policy. */
export type AllowedTextSource =
  | { readonly guard: PlanGuard; readonly compiler?: undefined }
  | { readonly compiler: PlanCompiler; readonly guard?: undefined }

function shorten(text: string): string {
  return text.length > MAX_ARGUMENT_TEXT ? `${text.slice(0, MAX_ARGUMENT_TEXT)}…` : text
}

function argumentText(value: unknown): string {
  try {
    return canonicalJson(value)
  } catch {
    return '(arguments that are not JSON)'
  }
}

function readyStepsText(guard: PlanGuard): string {
  const ready = guard.readySteps()
  if (ready.length === 0) {
    return guard.isComplete()
      ? 'Every step of the approved plan has finished; no more tool calls are needed.'
      : 'No step of the approved plan is ready now.'
  }
  const lines = ready.slice(0, MAX_LISTED_STEPS).map((step) => {
    const resolved = guard.resolveArgs(step.id)
    const args = argumentText(resolved.success ? resolved.args : step.args)
    return `- step ${JSON.stringify(step.id)}: ${step.tool} ${shorten(args)}`
  })
  if (ready.length > MAX_LISTED_STEPS) lines.push(`- … and ${ready.length - MAX_LISTED_STEPS} more`)
  return `Ready steps of the approved plan (call each tool with exactly these arguments):\n${lines.join('\n')}`
}

function policyText(compiler: PlanCompiler): string {
  const { policy, scope } = compiler.policy
  const tools = [...compiler.policy.tools.keys()]
  const parts = [
    tools.length === 0 ? 'no tools' : `the tools ${someOf(tools, MAX_LISTED_TOOLS)}`,
    `paths inside ${scope.roots.join(', ')}`,
  ]
  if (policy.commands.allow.length > 0) {
    parts.push(
      `single commands (no pipes, lists or redirections) of ${someOf(policy.commands.allow, MAX_LISTED_PROGRAMS)}`,
    )
  }
  return `Allowed: ${parts.join('; ')}.`
}

/**
 * What a model may do instead of a refused call, for {@link refusalText}: with a guard in plan
 * mode, its ready steps with the exact arguments to call them with; with a compiler (per-turn
 * or per-call mode), the policy's tools, workspace roots and programs in one paragraph.
 *
 * @example
 * ```ts
 * allowedText(mode === 'plan' ? { guard } : { compiler })
 * // Allowed: the tools view_file, write_file; paths inside /srv/repo.
 * ```
 */
export function allowedText(source: AllowedTextSource): string {
  return source.guard === undefined ? policyText(source.compiler) : readyStepsText(source.guard)
}
