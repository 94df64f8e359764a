import type { IssueCode, PlanIssue } from '../types/plan-issue.js'

const marker = Symbol.for('@plan/core.error')

/** Options of {@link PlanError}. */
export interface PlanErrorOptions {
  /** The error's code; defaults to the first issue's code, else `internal_error`. */
  readonly code?: IssueCode
  /** The problems behind the error; defaults to one issue with the code and the message. */
  readonly issues?: readonly PlanIssue[]
  readonly cause?: unknown
}

/** True when `error` is an object carrying the `Symbol.for` marker of an error class. */
export function hasErrorMarker(error: unknown, symbol: symbol): boolean {
  try {
    return typeof error === 'object' && error !== null && Reflect.get(error, symbol) === true
  } catch {
    return false
  }
}

/**
 * Base class of every error thrown by `@plan` packages. Every instance carries an issue code
 * and at least one issue.
 *
 * Use {@link PlanError.isInstance} rather than `instanceof`: an application can hold two
 * copies of `@plan/core`, and `instanceof` fails across them. Each subclass has its own marker,
 * so `PolicyError.isInstance` is false for a `PlanCompilationError`.
 */
export class PlanError extends Error {
  /** What went wrong, as an issue code (`invalid_configuration`, `plan_tampered`, …). */
  readonly code: IssueCode
  /** The problems behind this error, each with a code, a location and a hint. */
  readonly issues: readonly PlanIssue[]

  constructor(message: string, options: PlanErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'PlanError'
    Object.defineProperty(this, marker, { value: true })
    const first = options.issues?.[0]
    this.code = options.code ?? first?.code ?? 'internal_error'
    this.issues =
      first === undefined
        ? [{ code: this.code, message, path: [] }]
        : (options.issues as readonly PlanIssue[])
  }

  /** True for any `PlanError` (or subclass), from any copy of the package. */
  static isInstance(error: unknown): error is PlanError {
    return hasErrorMarker(error, marker)
  }
}
