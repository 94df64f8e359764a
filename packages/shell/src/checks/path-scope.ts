import type { PathAccess, PathCheckResult, PathDenial, PathScope } from '../types/path-scope.js'
import { isWithin } from '../util/is-within.js'
import { posix } from '../util/posix-path.js'
import { hasUnsafeCharacter } from '../util/unsafe-characters.js'
import { standsFor } from './build-file-alternatives.js'
import { findEncodedTraversal, findNormalizedSeparator } from './find-encoded-traversal.js'
import { deniedHint, outsideHint, placeInList, readOnlyHint } from './path-wording.js'
import { isUnderAny, relativeScope } from './relative-scope.js'

/** Longest accepted path, in characters (Linux's PATH_MAX). */
export const MAX_PATH_LENGTH = 4096

export { isWithin }

const DRIVE_LETTER = /^[A-Za-z]:/
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//

const SLASH = 0x2f
const TILDE = 0x7e
const DOT = 0x2e

/** True when `value[start, end)` is empty, `.` or `..`: a segment that resolving changes. */
function isSpecialSegment(value: string, start: number, end: number): boolean {
  const size = end - start
  if (size === 0) return true
  if (size > 2 || value.charCodeAt(start) !== DOT) return false
  return size === 1 || value.charCodeAt(start + 1) === DOT
}

/**
 * True for a path that `posix.resolve` keeps as it is (absolute) or only prefixes with the root
 * (relative), and that no character check refuses: printable ASCII except `\`, `:`, `%` and a
 * leading `~` (HEAD~1 is plain), and no empty, `.` or `..` segment (so no `//` and no trailing `/`).
 */
function isPlainPath(value: string): boolean {
  let segment = value.charCodeAt(0) === SLASH ? 1 : 0
  for (let index = segment; index < value.length; index += 1) {
    const code = value.charCodeAt(index)
    if (code === SLASH) {
      if (isSpecialSegment(value, segment, index)) return false
      segment = index + 1
    } else if (code < 0x20 || code > 0x7e || code === 0x5c || code === 0x3a || code === 0x25) {
      return false
    } else if (code === TILDE && index === 0) {
      return false
    }
  }
  return !isSpecialSegment(value, segment, value.length)
}

// The last root found plain and absolute, so that relative plain paths resolve by concatenation.
let plainRoot: string | undefined

/** True for `/`, or an absolute root that {@link isPlainPath} accepts. */
function isPlainRoot(root: string): boolean {
  if (root === plainRoot) return true
  if (root !== '/' && (root.charCodeAt(0) !== SLASH || !isPlainPath(root))) return false
  plainRoot = root
  return true
}

function denial(code: PathDenial['code'], message: string, hint: string): PathDenial {
  return { code, message, hint }
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
  const checked = resolvePath(value, scope, access)
  return typeof checked === 'string'
    ? { allowed: true, resolved: checked }
    : { allowed: false, issue: checked }
}

/**
 * {@link checkPathLexical} without the result wrapper: the resolved path, or why it was refused.
 */
export function resolvePath(
  value: unknown,
  scope: PathScope,
  access: PathAccess = 'read',
): string | PathDenial {
  if (typeof value !== 'string') {
    return denial(
      'invalid_arguments',
      `A path must be a string, got ${describe(value)}.`,
      `Pass a path inside ${listRoots(scope)} as a string.`,
    )
  }
  const first = scope.roots[0]
  if (value.length <= MAX_PATH_LENGTH && first !== undefined && isPlainPath(value)) {
    // Same result as the checks below, without regular expressions or posix.resolve.
    if (value.charCodeAt(0) === SLASH) {
      if (!isInsideRoots(scope, value)) return outside(value, value, scope, first)
      return checkListed(value, scope, access)
    }
    if (!isPlainRoot(first)) return checkPathSlowly(value, scope, access, first)
    return checkListed(first === '/' ? `/${value}` : `${first}/${value}`, scope, access)
  }
  return checkPathSlowly(value, scope, access, first)
}

/**
 * {@link resolvePath} when only the verdict is needed: undefined for an allowed path, else the
 * same denial. A plain relative path is checked against the scope as seen from its first root
 * (see {@link relativeScope}), without building the resolved path.
 */
export function findPathDenial(
  value: unknown,
  scope: PathScope,
  access: PathAccess = 'read',
): PathDenial | undefined {
  const first = scope.roots[0]
  if (
    typeof value === 'string' &&
    first !== undefined &&
    value.length <= MAX_PATH_LENGTH &&
    value.charCodeAt(0) !== SLASH &&
    isPlainPath(value) &&
    isPlainRoot(first)
  ) {
    const view = relativeScope(scope, first)
    if (!isUnderAny(view.deny, value) && (access !== 'write' || !isUnderAny(view.readOnly, value)))
      return undefined
  }
  const resolved = resolvePath(value, scope, access)
  return typeof resolved === 'string' ? undefined : resolved
}

/**
 * The reference form of {@link resolvePath}: every check spelled out, without the fast path for
 * plain ASCII paths (the two must agree on every input).
 */
export function checkPathSlowly(
  value: string,
  scope: PathScope,
  access: PathAccess,
  first: string | undefined,
): string | PathDenial {
  if (value.length === 0)
    return denial('path_invalid', 'The path is empty.', `Pass a path inside ${listRoots(scope)}.`)
  if (value.length > MAX_PATH_LENGTH) {
    return denial(
      'path_invalid',
      `The path is ${value.length} characters long (at most ${MAX_PATH_LENGTH}).`,
      'Pass a shorter path.',
    )
  }
  if (hasUnsafeCharacter(value)) {
    return denial(
      'path_invalid',
      'The path contains a NUL, control or invisible formatting character.',
      'Remove control characters from the path.',
    )
  }
  if (value.startsWith('~')) {
    return denial(
      'path_invalid',
      'The path starts with "~", which some tools expand to a home folder.',
      `Use a path relative to the workspace (${listRoots(scope)}).`,
    )
  }
  if (value.includes('\\')) {
    return denial(
      'path_invalid',
      'The path contains a backslash.',
      'Use forward slashes; Windows-style and UNC paths are not accepted.',
    )
  }
  if (DRIVE_LETTER.test(value)) {
    return denial(
      'path_invalid',
      'The path starts with a Windows drive letter.',
      `Use a POSIX path inside ${listRoots(scope)}.`,
    )
  }
  if (URL_SCHEME.test(value) || value.startsWith('//')) {
    return denial(
      'path_invalid',
      'The path is a URL or a network (UNC-style) path.',
      `Pass a plain file path inside ${listRoots(scope)}.`,
    )
  }
  const encoded = findEncodedTraversal(value) ?? findNormalizedSeparator(value)
  if (encoded !== undefined) {
    return denial(
      'path_invalid',
      `The path contains ${encoded}.`,
      'Pass the literal path, not an encoded one; write "." and "/" as themselves.',
    )
  }
  if (first === undefined)
    return denial(
      'path_outside_workspace',
      'The policy has no workspace root.',
      'Add a root to workspace.roots.',
    )
  const resolved = posix.resolve(first, value)
  if (!isInsideRoots(scope, resolved)) return outside(value, resolved, scope, first)
  return checkListed(resolved, scope, access)
}

function isInsideRoots(scope: PathScope, resolved: string): boolean {
  for (const root of scope.roots) if (isWithin(root, resolved)) return true
  return false
}

function outside(value: string, resolved: string, scope: PathScope, first: string): PathDenial {
  const rootList = listRoots(scope)
  return denial(
    'path_outside_workspace',
    `The path ${JSON.stringify(value)} resolves to ${resolved}, outside the workspace (${rootList}).`,
    outsideHint(resolved, scope.roots, first),
  )
}

/** The resolved path, unless it lies under a denied entry, or a read-only one for writes. */
function checkListed(resolved: string, scope: PathScope, access: PathAccess): string | PathDenial {
  for (const denied of scope.deny) {
    if (isWithin(denied, resolved)) {
      return denial(
        'path_not_allowed',
        `The path ${placeInList(resolved, denied, 'workspace.deny')}: it may be neither read nor written.`,
        deniedHint(denied),
      )
    }
  }
  if (access === 'write') {
    for (const readOnly of scope.readOnly) {
      if (isWithin(readOnly, resolved)) return readOnlyDenial(resolved, readOnly, scope)
    }
  }
  return resolved
}

/** The refusal of a write under the read-only `entry`, which may stand in for a build file. */
function readOnlyDenial(resolved: string, entry: string, scope: PathScope): PathDenial {
  const standIn = standsFor(entry, scope.readOnly, scope.roots)
  if (standIn === undefined) {
    return denial(
      'path_not_allowed',
      `The path ${placeInList(resolved, entry, 'workspace.readOnly')}: it may be read, not written.`,
      readOnlyHint(entry),
    )
  }
  return denial(
    'path_not_allowed',
    `The path ${resolved} is read by ${standIn.tool} in place of or beside ${standIn.file}, which is in workspace.readOnly: it may be read, not written.`,
    readOnlyHint(standIn.file),
  )
}

function listRoots(scope: PathScope): string {
  return scope.roots.join(', ')
}

/** A short description of a value's type for messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null'
  try {
    if (Array.isArray(value)) return 'an array'
  } catch {
    return 'a revoked Proxy'
  }
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}
