import { posix } from 'node:path'
import type { IssueCode } from '../issues/plan-issue.js'

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

/** Longest accepted path, in characters (Linux's PATH_MAX). */
export const MAX_PATH_LENGTH = 4096

// C0 and C1 controls, DEL, and the Unicode format characters that reorder or hide text.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/
const PERCENT_ENCODED = /%[0-9a-fA-F]{2}/
const DRIVE_LETTER = /^[A-Za-z]:/
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//

/** True when `child` is `parent` or lies below it, compared segment by segment. */
export function isWithin(parent: string, child: string): boolean {
  if (parent === '/') return child.startsWith('/')
  if (child.length === parent.length) return child === parent
  return (
    child.length > parent.length &&
    child.charCodeAt(parent.length) === SLASH &&
    child.startsWith(parent)
  )
}

const SLASH = 0x2f
const DOT = 0x2e

/**
 * True for a path that `posix.resolve` leaves as it is (absolute) or only prefixes with the
 * root (relative), and that none of the character checks refuses: printable ASCII except
 * `\`, `:`, `%` and `~`, no empty, `.` or `..` segment, no trailing `/`.
 */
function isPlainPath(value: string): boolean {
  const length = value.length
  if (length === 0) return false
  // Index where the current segment starts; an absolute path starts its first segment at 1.
  let segment = value.charCodeAt(0) === SLASH ? 1 : 0
  if (segment === length) return false
  for (let index = segment; index < length; index += 1) {
    const code = value.charCodeAt(index)
    if (code === SLASH) {
      const size = index - segment
      if (
        size === 0 ||
        (size === 1 && value.charCodeAt(segment) === DOT) ||
        (size === 2 && value.charCodeAt(segment) === DOT && value.charCodeAt(segment + 1) === DOT)
      )
        return false
      segment = index + 1
    } else if (
      code < 0x20 ||
      code > 0x7d ||
      code === 0x5c /* \ */ ||
      code === 0x3a /* : */ ||
      code === 0x25 /* % */
    ) {
      // 0x7e (~) and everything above it, controls, and the characters other checks look at.
      return false
    }
  }
  const size = length - segment
  return !(
    size === 0 ||
    (size === 1 && value.charCodeAt(segment) === DOT) ||
    (size === 2 && value.charCodeAt(segment) === DOT && value.charCodeAt(segment + 1) === DOT)
  )
}

// The last root seen to be plain and absolute; relative plain paths then resolve by concatenation.
let plainRoot: string | undefined

function deny(code: PathDenial['code'], message: string, hint: string): PathCheckResult {
  return { allowed: false, issue: { code, message, hint } }
}

/**
 * Checks a path argument lexically (no file system access): it must be a plain POSIX path
 * that resolves inside a workspace root, outside `deny`, and outside `readOnly` for writes.
 */
export function checkPathLexical(
  value: unknown,
  scope: PathScope,
  access: PathAccess = 'read',
): PathCheckResult {
  const rootList = scope.roots.join(', ')
  if (typeof value !== 'string') {
    return deny(
      'invalid_arguments',
      `A path must be a string, got ${describe(value)}.`,
      `Pass a path inside ${rootList} as a string.`,
    )
  }
  if (value.length === 0)
    return deny('path_invalid', 'The path is empty.', `Pass a path inside ${rootList}.`)
  if (value.length > MAX_PATH_LENGTH) {
    return deny(
      'path_invalid',
      `The path is ${value.length} characters long (at most ${MAX_PATH_LENGTH}).`,
      'Pass a shorter path.',
    )
  }
  if (CONTROL.test(value)) {
    return deny(
      'path_invalid',
      'The path contains a NUL, control or invisible formatting character.',
      'Remove control characters from the path.',
    )
  }
  if (value.startsWith('~')) {
    return deny(
      'path_invalid',
      'The path starts with "~", which some tools expand to a home folder.',
      `Use a path relative to the workspace (${rootList}).`,
    )
  }
  if (value.includes('\\')) {
    return deny(
      'path_invalid',
      'The path contains a backslash.',
      'Use forward slashes; Windows-style and UNC paths are not accepted.',
    )
  }
  if (DRIVE_LETTER.test(value)) {
    return deny(
      'path_invalid',
      'The path starts with a Windows drive letter.',
      `Use a POSIX path inside ${rootList}.`,
    )
  }
  if (URL_SCHEME.test(value) || value.startsWith('//')) {
    return deny(
      'path_invalid',
      'The path is a URL or a network (UNC-style) path.',
      `Pass a plain file path inside ${rootList}.`,
    )
  }
  if (PERCENT_ENCODED.test(value)) {
    return deny(
      'path_invalid',
      'The path contains percent-encoded characters.',
      'Pass the literal path, not a URL-encoded one.',
    )
  }
  const first = scope.roots[0]
  if (first === undefined)
    return deny(
      'path_outside_workspace',
      'The policy has no workspace root.',
      'Add a root to workspace.roots.',
    )
  const resolved = posix.resolve(first, value)
  if (!scope.roots.some((root) => isWithin(root, resolved))) {
    return deny(
      'path_outside_workspace',
      `The path ${JSON.stringify(value)} resolves to ${resolved}, outside the workspace (${rootList}).`,
      `Use a path inside ${rootList}, e.g. a path relative to ${first}.`,
    )
  }
  const denied = scope.deny.find((entry) => isWithin(entry, resolved))
  if (denied !== undefined) {
    return deny(
      'path_not_allowed',
      `The path ${resolved} is under ${denied}, which the policy denies.`,
      `Do not read or write under ${denied}.`,
    )
  }
  if (access === 'write') {
    const readOnly = scope.readOnly.find((entry) => isWithin(entry, resolved))
    if (readOnly !== undefined) {
      return deny(
        'path_not_allowed',
        `The path ${resolved} is under ${readOnly}, which is read-only.`,
        `Write somewhere other than ${readOnly}.`,
      )
    }
  }
  return { allowed: true, resolved }
}

/** A short description of a value's type for messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}
