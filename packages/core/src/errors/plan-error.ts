import type { PlanIssue } from '../issues/plan-issue.js'

const marker = Symbol.for('@plan/core.error')

/**
 * Base class of every error thrown by `@plan` packages.
 *
 * Use {@link PlanError.isInstance} rather than `instanceof`: an application can hold two
 * copies of `@plan/core`, and `instanceof` fails across them.
 */
export class PlanError extends Error {
  /** The problems behind this error, each with a code, a location and a hint. */
  readonly issues: readonly PlanIssue[]

  constructor(message: string, options: { issues?: readonly PlanIssue[]; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'PlanError'
    Object.defineProperty(this, marker, { value: true })
    this.issues = options.issues ?? []
  }

  /** True for any `PlanError`, from any copy of the package. */
  static isInstance(error: unknown): error is PlanError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[marker] === true
    )
  }
}
