import { hasOwnKey, isForbiddenKey, isPlainObject } from '@plan/json'
import { createIssue, describe, valueAt } from '@plan/shell/common'
import type { ArgSpec, ToolPolicy } from '../schema/policy-schema.js'
import type { JsonObject } from '../types/json-value.js'
import { sortSmall } from '../util/sort-small.js'
import { type ArgumentWalk, fail, type Path } from './argument-walk.js'
import { checkArgumentValue } from './check-argument-value.js'

type Declared = Readonly<Record<string, ArgSpec>>

// The place of a top-level argument inside the arguments; spread, never mutated.
const TOP: Path = []

function declaredHint(declared: Declared): string {
  const names = Object.keys(declared)
  return names.length === 0
    ? 'This tool takes no arguments.'
    : `Declared arguments: ${names.join(', ')}.`
}

/** The hint for an undeclared argument: what is declared, and the policy line it would need. */
function undeclaredHint(declared: Declared, name: string): string {
  return `${declaredHint(declared)} Passing ${JSON.stringify(name)} needs it declared in the tool's args in the policy.`
}

/** A copy of `record` with its keys inserted in sorted order (canonical for hashing). */
function sortedCopy(record: JsonObject): JsonObject {
  const sorted: JsonObject = {}
  for (const name of sortSmall(Object.keys(record))) sorted[name] = valueAt(record, name)
  return sorted
}

/** `{ [second]: …, [first]: … }`: the sorted copy of an object whose only keys are `first`, `second`. */
function swappedPair(record: JsonObject, first: string, second: string): JsonObject {
  const sorted: JsonObject = {}
  sorted[second] = valueAt(record, second)
  sorted[first] = valueAt(record, first)
  return sorted
}

/**
 * Checks one call's arguments against a tool's declaration (undeclared, missing, mistyped, paths,
 * commands, references), appending to `walk.issues` and `walk.references`: no result per step.
 */
export function checkArgumentsInto(
  tool: ToolPolicy,
  args: unknown,
  walk: ArgumentWalk,
): JsonObject {
  const declared = tool.args
  const given = args === undefined || args === null ? {} : args
  if (!isPlainObject(given, walk.owned === true)) {
    const message = `Arguments must be an object, got ${describe(given)}.`
    const path = [...walk.base]
    walk.issues.push(
      createIssue('invalid_arguments', message, path, declaredHint(declared), walk.stepId),
    )
    return {}
  }
  const clean = checkDeclared(declared, given, walk)
  reportMissing(declared, given, walk)
  return Object.freeze(clean)
}

/**
 * The declared arguments of `args`, checked, in sorted key order; the others are reported. Owned
 * (`walk.owned`) ones are checked in place: values written back, `args` itself returned unless its
 * keys are out of order (then a sorted copy); with any issue the plan is refused, `{}` stands in.
 */
function checkDeclared(
  declared: Declared,
  args: Record<string, unknown>,
  walk: ArgumentWalk,
): JsonObject {
  const owned = walk.owned === true
  // Owned, every own key of `args` holds its checked value once the loop is done without issue.
  const clean = owned ? (args as JsonObject) : {}
  let first: string | undefined
  let previous: string | undefined
  let count = 0
  let sorted = true
  let ok = true
  for (const name in args) {
    if (!hasOwnKey(args, name)) continue
    if (!hasOwnKey(declared, name) || isForbiddenKey(name)) {
      const message = `Argument ${JSON.stringify(name)} is not declared for this tool.`
      fail(walk, TOP, name, message, undeclaredHint(declared, name), 'unknown_argument')
      ok = false
      continue
    }
    const given = args[name]
    const value = checkArgumentValue(valueAt(declared, name), given, TOP, name, walk)
    if (value === undefined) {
      ok = false
      continue
    }
    if (value !== given || !owned) clean[name] = value
    if (previous === undefined) first = name
    else if (previous >= name) sorted = false
    previous = name
    count += 1
  }
  if (owned && !ok) return {}
  if (sorted) return clean
  // Two keys out of order (`{ file, content }`): the sorted copy is the pair swapped.
  return count === 2 && first !== undefined && previous !== undefined
    ? swappedPair(clean, first, previous)
    : sortedCopy(clean)
}

function reportMissing(declared: Declared, args: Record<string, unknown>, walk: ArgumentWalk) {
  for (const name in declared) {
    if (!hasOwnKey(declared, name) || hasOwnKey(args, name)) continue
    const spec = valueAt(declared, name)
    if (spec.required !== false) {
      const message = `Required argument ${JSON.stringify(name)} is missing.`
      fail(walk, TOP, name, message, `Add "${name}" (${spec.type}).`, 'missing_argument')
    }
  }
}
