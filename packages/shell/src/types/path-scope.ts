import type { IssueCode } from './plan-issue.js'

/** Where paths may point: absolute, normalised folders. */
export interface PathScope {
  /** Workspace roots; relative paths resolve against the first. */
  readonly roots: readonly string[]
  /** Absolute paths that may be read but not written. */
  readonly readOnly: readonly string[]
  /** Absolute paths that may be neither read nor written. */
  readonly deny: readonly string[]
}

/** How a path argument is used. */
export type PathAccess = 'read' | 'write'

/** Why a path was refused. */
export interface PathDenial {
  readonly code: Extract<
    IssueCode,
    'path_outside_workspace' | 'path_invalid' | 'path_not_allowed' | 'invalid_arguments'
  >
  readonly message: string
  readonly hint: string
}

/** The result of a path check: the absolute path, or why it was refused. */
export type PathCheckResult =
  | { readonly allowed: true; readonly resolved: string }
  | { readonly allowed: false; readonly issue: PathDenial }
