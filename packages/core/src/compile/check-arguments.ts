import { hasOwnKey, isForbiddenKey, isPlainObject } from '@plan/json'
import { createIssue, describe, type PlanIssue, valueAt } from '@plan/shell/common'
import type { ArgSpec, ToolPolicy } from '../schema/policy-schema.js'
import type { StepReference } from '../types/compiled-plan.js'
import type { JsonObject } from '../types/json-value.js'
import { sortSmall } from '../util/sort-small.js'
import type { ArgumentContext, ArgumentWalk, Path } from './argument-walk.js'
import { checkArgumentValue } from './check-argument-value.js'

/** The checked arguments: a clean copy, its references, and every issue. */
export interface ArgumentCheck {
  readonly args: JsonObject
  readonly references: StepReference[]
  readonly issues: PlanIssue[]
}

type Declared = Readonly<Record<string, ArgSpec>>

// The argument path above a top-level argument; spread, never mutated.
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

function byName(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0
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
 * Checks one call's arguments against a tool's declaration: undeclared, missing and
 * mistyped arguments, paths, commands, references. Reports every problem.
 */
export function checkArguments(
  tool: ToolPolicy,
  args: unknown,
  base: Path,
  context: ArgumentContext,
): ArgumentCheck {
  const walk: ArgumentWalk = { ...context, issues: [], references: [] }
  const clean = checkArgumentsInto(tool, args, base, walk)
  return { args: clean, references: walk.references, issues: walk.issues }
}

/**
 * {@link checkArguments} appending to `walk.issues` and `walk.references`, so that a whole plan
 * is checked without a result object per step. Issue paths are built only for issues, from a
 * copy of `base`: the caller may reuse `base` between calls.
 */
export function checkArgumentsInto(
  tool: ToolPolicy,
  args: unknown,
  base: Path,
  walk: ArgumentWalk,
): JsonObject {
  const declared = tool.args
  const given = args === undefined || args === null ? {} : args
  if (!isPlainObject(given, walk.owned === true)) {
    const message = `Arguments must be an object, got ${describe(given)}.`
    walk.issues.push(
      createIssue('invalid_arguments', message, [...base], declaredHint(declared), walk.stepId),
    )
    return {}
  }
  const clean =
    walk.owned === true
      ? adoptDeclared(declared, given, base, walk)
      : copyDeclared(declared, given, base, walk)
  reportMissing(declared, given, base, walk)
  return Object.freeze(clean)
}

function reportUndeclared(declared: Declared, name: string, base: Path, walk: ArgumentWalk): void {
  const message = `Argument ${JSON.stringify(name)} is not declared for this tool.`
  walk.issues.push(
    createIssue(
      'unknown_argument',
      message,
      [...base, name],
      undeclaredHint(declared, name),
      walk.stepId,
    ),
  )
}

/** The declared arguments of `args`, checked, in sorted key order; the others are reported. */
function copyDeclared(
  declared: Declared,
  args: Record<string, unknown>,
  base: Path,
  walk: ArgumentWalk,
): JsonObject {
  const clean: JsonObject = {}
  let previous: string | undefined
  let sorted = true
  for (const name in args) {
    if (!hasOwnKey(args, name)) continue
    if (!hasOwnKey(declared, name) || isForbiddenKey(name)) {
      reportUndeclared(declared, name, base, walk)
      continue
    }
    const spec = valueAt(declared, name)
    const value = checkArgumentValue(spec, args[name], base, name, TOP, 0, walk)
    if (value === undefined) continue
    if (previous !== undefined && byName(previous, name) >= 0) sorted = false
    previous = name
    clean[name] = value
  }
  return sorted ? clean : sortedCopy(clean)
}

/**
 * {@link copyDeclared} for arguments the compiler owns (`walk.owned`): checked values are written
 * back and `args` itself is returned, unless its keys are out of sorted order (then a sorted
 * copy). With any issue the plan is refused, and the empty object stands in.
 */
function adoptDeclared(
  declared: Declared,
  args: Record<string, unknown>,
  base: Path,
  walk: ArgumentWalk,
): JsonObject {
  let first: string | undefined
  let previous: string | undefined
  let count = 0
  let sorted = true
  let clean = true
  for (const name in args) {
    if (!hasOwnKey(args, name)) continue
    if (!hasOwnKey(declared, name) || isForbiddenKey(name)) {
      reportUndeclared(declared, name, base, walk)
      clean = false
      continue
    }
    const given = args[name]
    const value = checkArgumentValue(valueAt(declared, name), given, base, name, TOP, 0, walk)
    if (value === undefined) clean = false
    else if (value !== given) args[name] = value
    if (previous === undefined) first = name
    else if (byName(previous, name) >= 0) sorted = false
    previous = name
    count += 1
  }
  if (!clean) return {}
  // Clean, every own key of `args` holds its checked value.
  const adopted = args as JsonObject
  if (sorted) return adopted
  // Two keys out of order (`{ file, content }`): the sorted copy is the pair swapped.
  return count === 2 && first !== undefined && previous !== undefined
    ? swappedPair(adopted, first, previous)
    : sortedCopy(adopted)
}

function reportMissing(
  declared: Declared,
  args: Record<string, unknown>,
  base: Path,
  walk: ArgumentWalk,
): void {
  for (const name in declared) {
    if (!hasOwnKey(declared, name) || hasOwnKey(args, name)) continue
    const spec = valueAt(declared, name)
    if (spec.required !== false) {
      walk.issues.push(
        createIssue(
          'missing_argument',
          `Required argument ${JSON.stringify(name)} is missing.`,
          [...base, name],
          `Add "${name}" (${spec.type}).`,
          walk.stepId,
        ),
      )
    }
  }
}
