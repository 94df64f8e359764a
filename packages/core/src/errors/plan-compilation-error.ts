import { formatIssues, hasErrorMarker, PlanError, type PlanIssue } from '@plan/shell/common'

const marker = Symbol.for('@plan/core.error.plan-compilation')

/** Thrown by `compiler.compile` when a plan is rejected; carries every issue found. */
export class PlanCompilationError extends PlanError {
  constructor(issues: readonly PlanIssue[]) {
    super(
      `Plan rejected with ${issues.length} issue${issues.length === 1 ? '' : 's'}:\n${formatIssues(issues)}`,
      { code: issues[0]?.code ?? 'invalid_plan', issues },
    )
    this.name = 'PlanCompilationError'
    Object.defineProperty(this, marker, { value: true })
  }

  /** True for a `PlanCompilationError` from any copy of the package (false for other errors). */
  static override isInstance(error: unknown): error is PlanCompilationError {
    return hasErrorMarker(error, marker)
  }
}
