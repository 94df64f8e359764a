import type { PathScope } from '../types/path-scope.js'

const SLASH = 0x2f

/**
 * A scope's deny and read-only entries as seen from below its first root: for a relative path
 * `value` without empty, `.` or `..` segments, `isWithin(entry, root + "/" + value)` is
 * `all` for every value when the entry holds the whole root, false when it lies elsewhere, and
 * otherwise {@link isWithinRelative} of the entry's part below the root.
 */
export interface RelativeEntries {
  readonly all: boolean
  readonly below: readonly string[]
}

/** A scope seen from its first root; see {@link relativeScope}. */
export interface RelativeScope {
  readonly deny: RelativeEntries
  readonly readOnly: RelativeEntries
}

interface Cached {
  readonly scope: PathScope
  readonly root: string
  readonly deny: readonly string[]
  readonly readOnly: readonly string[]
  readonly view: RelativeScope
}

// The last scope seen, with copies of what its view was made from: a scope whose arrays were
// changed since is seen anew, so the view is never stale.
let cached: Cached | undefined

/** `relative === value`, or `value` lies below `relative`, compared segment by segment. */
export function isWithinRelative(relative: string, value: string): boolean {
  if (value.length <= relative.length) return value === relative
  return value.charCodeAt(relative.length) === SLASH && value.startsWith(relative)
}

function sameEntries(left: readonly string[], right: readonly string[]): boolean {
  if (left.length !== right.length) return false
  for (let index = 0; index < left.length; index += 1)
    if (left[index] !== right[index]) return false
  return true
}

function entriesBelow(prefix: string, entries: readonly string[]): RelativeEntries {
  let all = false
  const below: string[] = []
  for (const entry of entries) {
    if (entry === '/') all = true
    else if (entry.length < prefix.length) {
      if (prefix.charCodeAt(entry.length) === SLASH && prefix.startsWith(entry)) all = true
    } else if (entry.startsWith(prefix)) below.push(entry.slice(prefix.length))
  }
  return { all, below }
}

/**
 * The view of `scope` from its first root `root` (a plain absolute path, which the caller
 * checked), made once per scope and remade whenever the scope's entries change.
 */
export function relativeScope(scope: PathScope, root: string): RelativeScope {
  if (
    cached !== undefined &&
    cached.scope === scope &&
    cached.root === root &&
    sameEntries(cached.deny, scope.deny) &&
    sameEntries(cached.readOnly, scope.readOnly)
  )
    return cached.view
  const prefix = root === '/' ? '/' : `${root}/`
  const view = {
    deny: entriesBelow(prefix, scope.deny),
    readOnly: entriesBelow(prefix, scope.readOnly),
  }
  cached = { scope, root, deny: [...scope.deny], readOnly: [...scope.readOnly], view }
  return view
}

/** True when the relative path `value` lies under one of `entries`. */
export function isUnderAny(entries: RelativeEntries, value: string): boolean {
  if (entries.all) return true
  for (const relative of entries.below) if (isWithinRelative(relative, value)) return true
  return false
}
