import { createIssue, type PlanIssue, someOf } from '@plan/shell/common'
import type { ToolPolicy } from '../schema/policy-schema.js'
import type { ResolvedPolicy } from '../types/resolved-policy.js'
import type { Path } from './argument-walk.js'
import { quote, stepPath } from './step-path.js'
import { suggest } from './suggest.js'

/** Tools a hint names before it says how many more the policy lists. */
const MAX_LISTED_TOOLS = 6

/** Looks up step tools, reporting unknown ones and any past `maxCalls` (else `maxCallsPerTool`). */
export class StepTools {
  readonly #policy: ResolvedPolicy
  readonly #base: Path
  readonly #issues: PlanIssue[]
  #counts: Map<string, number> | undefined
  // The last tool looked up: plans often call one tool many times in a row.
  #lastName: string | undefined
  #lastPolicy: ToolPolicy | undefined

  constructor(policy: ResolvedPolicy, base: Path, issues: PlanIssue[]) {
    this.#policy = policy
    this.#base = base
    this.#issues = issues
  }

  /** The policy of the tool of the step at `index`, or undefined (reported when it is unknown). */
  resolve(tool: string | undefined, index: number, stepId?: string): ToolPolicy | undefined {
    if (tool === undefined) return undefined
    const toolPolicy = tool === this.#lastName ? this.#lastPolicy : this.#policy.tools.get(tool)
    this.#lastName = tool
    this.#lastPolicy = toolPolicy
    if (toolPolicy === undefined) {
      this.#reportUnknown(tool, index, stepId)
      return undefined
    }
    const limit = toolPolicy.maxCalls ?? this.#policy.policy.budgets.maxCallsPerTool
    if (limit !== undefined) this.#count(tool, limit, index, stepId)
    return toolPolicy
  }

  #reportUnknown(tool: string, index: number, stepId?: string): void {
    const toolNames = [...this.#policy.tools.keys()]
    const guess = suggest(tool, toolNames)
    const allowed =
      toolNames.length === 0
        ? 'The policy allows no tools.'
        : `Allowed tools: ${someOf(toolNames, MAX_LISTED_TOOLS)}. Calling ${quote(tool)} needs an entry for it in the policy's tools.`
    this.#issues.push(
      createIssue(
        'unknown_tool',
        `Tool ${quote(tool)} is not allowed by the policy.`,
        stepPath(this.#base, index, 'tool'),
        guess === undefined
          ? allowed
          : `Did you mean ${quote(guess)}? Tool names must match exactly. ${allowed}`,
        stepId,
      ),
    )
  }

  #count(tool: string, limit: number, index: number, stepId?: string): void {
    this.#counts ??= new Map()
    const count = (this.#counts.get(tool) ?? 0) + 1
    this.#counts.set(tool, count)
    if (count !== limit + 1) return
    this.#issues.push(
      createIssue(
        'budget_exceeded',
        `Tool ${quote(tool)} is called more than ${limit} times in this plan.`,
        stepPath(this.#base, index, 'tool'),
        `Call ${tool} at most ${limit} times.`,
        stepId,
      ),
    )
  }
}
