import {
  type CommandCheckResult,
  createIssue,
  type IssueCode,
  type PathScope,
  type PlanIssue,
} from '@plan/shell/common'
import type { StepReference } from '../types/compiled-plan.js'

/** Deepest accepted nesting of an argument value. */
export const MAX_ARGUMENT_DEPTH = 64
/** Longest string argument accepted when the policy sets no `maxLength`. */
export const DEFAULT_MAX_STRING_LENGTH = 100_000

/** A JSON path inside a plan or a call. */
export type Path = (string | number)[]
/** One segment of a {@link Path}. */
export type Key = string | number

/** Step ids to step indices (a Map will do). */
export interface StepIdLookup {
  get(id: string): number | undefined
  /** When given, `get(text.slice(0, length))` without the cut. */
  getPrefix?(text: string, length: number): number | undefined
}

/** Frozen reference paths and fields shared by the steps of one plan (see `ReferenceParts`). */
export interface SharedReferenceParts {
  /** The frozen path `[...parent, key]`. */
  path(parent: readonly Key[], key: Key): readonly Key[]
  /** The frozen field path of a `$ref` target whose first `.` is at `dot`; undefined if malformed. */
  field(target: string, dot: number): readonly string[] | undefined
}

/**
 * What an argument check reads (from the compiler) and the arrays that `checkArgumentsInto`
 * appends to.
 */
export interface ArgumentWalk {
  readonly scope: PathScope
  readonly checkCommand: (command: unknown) => CommandCheckResult
  /**
   * Step ids a `$ref` may name, or undefined when references are not allowed (live calls).
   * The value is the step's index.
   */
  readonly stepIds?: StepIdLookup
  /**
   * The id of the step at each index of `stepIds`, when known: references then hold that
   * string rather than a copy cut from the `$ref`.
   */
  readonly stepIdAt?: readonly (string | undefined)[]
  /** The step being checked, for self-reference detection. */
  readonly stepId?: string
  /**
   * The path of the arguments inside the plan (or call): an issue's path is this, then the
   * value's place inside the arguments. Copied for an issue, never written: the caller may
   * change it between calls.
   */
  readonly base: Path
  readonly issues: PlanIssue[]
  readonly references: StepReference[]
  /** When given, the index (in `stepIds`) of each reference's step, aligned with `references`. */
  readonly referenceTargets?: number[]
  /** When given, frozen reference paths and fields shared by every step of a plan. */
  readonly parts?: SharedReferenceParts
  /**
   * True when the compiler parsed the arguments itself (`JSON.parse`) and nothing else holds
   * them: checked objects are frozen in place instead of copied, and every object is an array
   * or plain, so that no prototype need be read.
   */
  readonly owned?: boolean
}

/**
 * Reports an issue (`invalid_arguments` unless `code` says otherwise) at the value `key` of
 * `at`, a place inside the arguments (the path is built only here, for an issue), and returns
 * undefined, the "rejected" value of every check.
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
