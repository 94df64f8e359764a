import type { IssueCode, PlanIssue } from '@plan/shell/common'
import type { PlanCompiler } from '../types/plan-compiler.js'

/** A decision of the policy: the call or command runs, or it is refused. */
export type PolicyDecision = 'allow' | 'deny'

/**
 * One case of a policy's behaviour: a whole tool call (`tool` and `args`) or a shell command, with
 * the decision the policy must reach and, for a denial, optionally the issue code it must give.
 */
export type PolicyCase = (
  | { readonly tool: string; readonly args?: Readonly<Record<string, unknown>> }
  | { readonly command: string }
) & { readonly expect: PolicyDecision; readonly code?: IssueCode; readonly name?: string }

/** What the policy decided for one case, and whether it is what the case expects. */
export interface PolicyCaseResult {
  readonly case: PolicyCase
  readonly decision: PolicyDecision
  /** Why it was refused; empty when allowed. */
  readonly issues: readonly PlanIssue[]
  /** True when the decision (and the code, when the case names one) is the expected one. */
  readonly passed: boolean
}

/** The parts of a compiler a case needs: the live-call checks, without the file system. */
export type PolicyCaseChecker = Pick<PlanCompiler, 'checkArguments' | 'checkCommand'>

/**
 * Decides one case with the compiler's live-call checks, as a plan's steps get (lexical, no disk).
 *
 * @example
 * ```ts
 * const compiler = await createPlanCompiler(policy)
 * decidePolicyCase(compiler, { command: 'git push --force', expect: 'deny' }).passed
 * ```
 */
export function decidePolicyCase(
  checker: PolicyCaseChecker,
  policyCase: PolicyCase,
): PolicyCaseResult {
  const issues = caseIssues(checker, policyCase)
  const decision: PolicyDecision = issues.length === 0 ? 'allow' : 'deny'
  const codeMatches =
    policyCase.code === undefined || issues.some((issue) => issue.code === policyCase.code)
  return {
    case: policyCase,
    decision,
    issues,
    passed: decision === policyCase.expect && (decision === 'allow' || codeMatches),
  }
}

function caseIssues(checker: PolicyCaseChecker, policyCase: PolicyCase): readonly PlanIssue[] {
  if ('command' in policyCase) {
    const result = checker.checkCommand(policyCase.command)
    return result.allowed ? [] : result.issues
  }
  return checker.checkArguments(policyCase.tool, policyCase.args ?? {})
}
