import {
  type CommandCheckResult,
  createIssue,
  type IssueCode,
  type PathScope,
  type PlanIssue,
} from '@plan/shell/common'
import type { StepReference } from '../types/compiled-plan.js'
import type { ReferenceParts } from './reference-parts.js'
import type { StepIndex } from './step-index.js'

/** Deepest accepted nesting of an argument value. */
export const MAX_ARGUMENT_DEPTH = 64
/** Longest string argument accepted when the policy sets no `maxLength`. */
export const DEFAULT_MAX_STRING_LENGTH = 100_000

/** A JSON path inside a plan or a call. */
export type Path = (string | number)[]
/** One segment of a {@link Path}. */
export type Key = string | number

/** The plan's steps, which a `$ref` may name. */
export interface PlanReferences {
  /** Each step id with the step's index. */
  readonly ids: StepIndex
  /** The id of the step at each index: references hold that string, not a copy cut from the `$ref`. */
  readonly idAt: readonly (string | undefined)[]
  /** Frozen reference paths and fields shared by every step of the plan. */
  readonly parts: ReferenceParts
  /** The index (in `ids`) of each reference's step, aligned with the walk's `references`. */
  readonly targets: number[]
}

/** What an argument check reads from the compiler, and the arrays `checkArgumentsInto` fills. */
export interface ArgumentWalk {
  readonly scope: PathScope
  readonly checkCommand: (command: unknown) => CommandCheckResult
  /** The steps a `$ref` may name, or undefined when references are not allowed (live calls). */
  readonly plan?: PlanReferences
  /** The step being checked, for self-reference detection. */
  readonly stepId?: string
  /**
   * Path of the arguments in the plan (or call), prefixing each issue's path. Copied for an issue,
   * never written: the caller may change it between calls.
   */
  readonly base: Path
  readonly issues: PlanIssue[]
  readonly references: StepReference[]
  /**
   * True when the compiler `JSON.parse`d the arguments and nothing else holds them: checked objects
   * are frozen in place, not copied, and every object is an array or plain (no prototype to read).
   */
  readonly owned?: boolean
}

/**
 * Reports a `code` issue at value `key` of `at` (a place in the arguments; the path is built only
 * here, for an issue) and returns undefined, the "rejected" value of every check.
 */
export function fail(
  walk: ArgumentWalk,
  at: Path,
  key: Key,
  message: string,
  hint?: string,
  code: IssueCode = 'invalid_arguments',
): undefined {
  walk.issues.push(createIssue(code, message, [...walk.base, ...at, key], hint, walk.stepId))
  return undefined
}
