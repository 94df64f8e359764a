import { formatPath, type PlanIssue } from '@plan/shell/common'

/** What {@link refusalText} says about a refused call. */
export interface RefusalTextOptions {
  /** The tool the model called. */
  readonly tool: string
  /** Why the call was refused. */
  readonly issues: readonly PlanIssue[]
  /** True when the call's whole turn was compiled as one plan and rejected (per-turn mode). */
  readonly turnRejected?: boolean | undefined
  /**
   * What the model may do instead, from {@link allowedText}; left out when empty, and when
   * every issue is `tainted_run` (its message already says what is still allowed).
   */
  readonly allowed?: string | undefined
}

/**
 * The issue's location within the call, as every source gives it: a turn's plan says
 * `steps[i].args.file`, a live call's check and a tool's own refusal say `file`; all read `file`.
 */
function callPath(path: readonly (string | number)[]): readonly (string | number)[] {
  const inCall = path[0] === 'steps' && typeof path[1] === 'number' ? path.slice(2) : path
  return inCall[0] === 'args' && inCall.length > 1 ? inCall.slice(1) : inCall
}

/** One line per issue, located at the call: `- code at file (step "a"): message Hint: hint`. */
function issueLines(issues: readonly PlanIssue[]): string {
  return issues
    .map((issue) => {
      const path = callPath(issue.path)
      const where = path.length === 0 ? '' : ` at ${formatPath(path)}`
      const step = issue.stepId === undefined ? '' : ` (step ${JSON.stringify(issue.stepId)})`
      const hint = issue.hint === undefined ? '' : ` Hint: ${issue.hint}`
      return `- ${issue.code}${where}${step}: ${issue.message}${hint}`
    })
    .join('\n')
}

/**
 * The text a model reads when a call is refused, the same in every adapter: that the call did
 * not run, one line per issue with its location and hint, and what is allowed instead (the
 * ready steps of the plan, or what the policy allows), so the model can recover.
 *
 * @example
 * ```ts
 * refusalText({ tool: 'view_file', issues, allowed: allowedText({ compiler }) })
 * // @plan denied the call to "view_file"; it did not run.
 * // - path_outside_workspace at file: … Hint: …
 * // Allowed: the tools view_file, write_file; paths inside /srv/repo.
 * ```
 */
export function refusalText(options: RefusalTextOptions): string {
  const turn =
    options.turnRejected === true
      ? " This turn's tool calls were compiled as one plan and the plan was rejected, so none of them ran."
      : ''
  // A tainted-run refusal says what is still allowed; the policy's whole list would contradict it.
  const tainted =
    options.issues.length > 0 && options.issues.every((issue) => issue.code === 'tainted_run')
  const allowed =
    options.allowed === undefined || options.allowed === '' || tainted ? '' : `\n${options.allowed}`
  return `@plan denied the call to ${JSON.stringify(options.tool)}; it did not run.${turn}\n${issueLines(options.issues)}${allowed}`
}

/**
 * The text that ends a run the guard stopped, the same in every adapter: the model's closing
 * answer when it asked for more tools after being told the run is over.
 *
 * @example
 * ```ts
 * runEndedText([stop])
 * // @plan ended the run: no further tool call will run.
 * // - repeated_call: The same tool calls were requested 4 times in this run (at most 3). Hint: …
 * ```
 */
export function runEndedText(issues: readonly PlanIssue[]): string {
  return `@plan ended the run: no further tool call will run.\n${issueLines(issues)}`
}

/** What {@link reviewText} puts to a human about one refused call. */
export interface ReviewTextOptions {
  /** Why the guard refused the call: `tainted_run` issues, each naming its untrusted sources. */
  readonly issues: readonly PlanIssue[]
  /** The call's place among the refusals of its turn put to the human together (1-based). */
  readonly index?: number | undefined
  /** How many refusals of the turn are put to the human together. */
  readonly count?: number | undefined
}

/**
 * The question a human reviewer reads about a call the guard refused under `trust.tainted`
 * with `onRefuse: 'ask'`, the same in every adapter: why it was refused, one line per issue
 * with the untrusted sources it names, its place in the turn's batch, and what a yes does.
 *
 * @example
 * ```ts
 * reviewText({ issues, index: 1, count: 2 })
 * // @plan refused this call (1 of 2 in this turn) because the run has read untrusted output:
 * // - tainted_run at command: … (sources: file:README.md) Hint: …
 * // Allow it once?
 * ```
 */
export function reviewText(options: ReviewTextOptions): string {
  const { index, count } = options
  const place =
    index !== undefined && count !== undefined && count > 1
      ? ` (${index} of ${count} in this turn)`
      : ''
  return `@plan refused this call${place} because the run has read untrusted output:\n${issueLines(options.issues)}\nAllow it once?`
}

/** What the model reads on its last step after the guard stopped the run, in every adapter. */
export function lastWordText(issues: readonly PlanIssue[]): string {
  return `@plan stopped this run; no tool will run any more.\n${issueLines(issues)}\nTell the user what was done, what is left, and why the run stopped.`
}
