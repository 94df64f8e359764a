import { createIssue, describe, findPathDenial } from '@plan/shell/common'
import { hasPattern, policyPattern } from '../policy/policy-pattern.js'
import type { ArgSpec } from '../schema/policy-schema.js'
import type { JsonValue } from '../types/json-value.js'
import { isScalar } from '../util/is-scalar.js'
import {
  type ArgumentWalk,
  DEFAULT_MAX_STRING_LENGTH,
  fail,
  type Key,
  MAX_ARGUMENT_DEPTH,
  type Path,
} from './argument-walk.js'
import { checkJsonArgument } from './check-json-argument.js'
import { checkReference, isReference } from './check-reference.js'
import { checkUrl } from './check-url.js'

type SpecOf<T extends ArgSpec['type']> = Extract<ArgSpec, { type: T }>

/**
 * A string's length as JSON Schema's `minLength` and `maxLength` count it, and as a server that
 * validates with its tool's input schema does: in code points (a surrogate pair is one).
 */
function codePoints(value: string): number {
  let count = 0
  for (const _ of value) count += 1
  return count
}

/** A value a path or command check allowed, which is always a string. */
function allowedString(
  value: unknown,
  parent: Path,
  key: Key,
  walk: ArgumentWalk,
): string | undefined {
  return typeof value === 'string'
    ? value
    : fail(walk, parent, key, `Expected a string, got ${describe(value)}.`)
}

function checkString(
  spec: SpecOf<'string'>,
  value: unknown,
  parent: Path,
  key: Key,
  walk: ArgumentWalk,
): JsonValue | undefined {
  if (typeof value !== 'string')
    return fail(walk, parent, key, `Expected a string, got ${describe(value)}.`)
  const max = spec.maxLength ?? DEFAULT_MAX_STRING_LENGTH
  // No more code points than UTF-16 units, and at least half as many: count them only where
  // the units do not decide.
  const length = value.length > max ? codePoints(value) : value.length
  if (length > max) {
    const message = `String is ${length} characters long (at most ${max}).`
    return fail(walk, parent, key, message, 'Send a shorter value.')
  }
  const min = spec.minLength
  if (min !== undefined && value.length < 2 * min && codePoints(value) < min)
    return fail(walk, parent, key, `String is shorter than ${min} characters.`)
  if (hasPattern(spec) && !policyPattern(spec).test(value))
    return fail(walk, parent, key, `String does not match the pattern ${spec.pattern}.`)
  if (spec.format === 'url') {
    const checked = checkUrl(value, { schemes: spec.schemes ?? ['https'], hosts: spec.hosts })
    if (!checked.ok) return fail(walk, parent, key, checked.message, checked.hint)
  }
  return value
}

function checkNumber(
  spec: SpecOf<'number'>,
  value: unknown,
  parent: Path,
  key: Key,
  walk: ArgumentWalk,
): JsonValue | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value))
    return fail(walk, parent, key, `Expected a finite number, got ${describe(value)}.`)
  if (spec.integer === true && !Number.isInteger(value))
    return fail(walk, parent, key, 'Expected an integer.')
  if (spec.minimum !== undefined && value < spec.minimum)
    return fail(walk, parent, key, `Number is below the minimum ${spec.minimum}.`)
  if (spec.maximum !== undefined && value > spec.maximum)
    return fail(walk, parent, key, `Number is above the maximum ${spec.maximum}.`)
  return value
}

function checkEnum(
  spec: SpecOf<'enum'>,
  value: unknown,
  parent: Path,
  key: Key,
  walk: ArgumentWalk,
): JsonValue | undefined {
  if (isScalar(value) && spec.values.some((allowed) => allowed === value)) return value
  const allowed = spec.values.map((entry) => JSON.stringify(entry)).join(', ')
  return fail(
    walk,
    parent,
    key,
    'Value is not one of the allowed values.',
    `Use one of: ${allowed}.`,
  )
}

function checkPathArgument(
  spec: SpecOf<'path'>,
  value: unknown,
  parent: Path,
  key: Key,
  walk: ArgumentWalk,
): JsonValue | undefined {
  const denied = findPathDenial(value, walk.scope, spec.access)
  if (denied === undefined) return allowedString(value, parent, key, walk)
  walk.issues.push(
    createIssue(denied.code, denied.message, [...parent, key], denied.hint, walk.stepId),
  )
  return undefined
}

function checkCommandArgument(
  value: unknown,
  parent: Path,
  key: Key,
  walk: ArgumentWalk,
): JsonValue | undefined {
  const result = walk.checkCommand(value)
  if (result.allowed) return allowedString(value, parent, key, walk)
  for (const found of result.issues) {
    const path = [...parent, key, ...found.path]
    walk.issues.push(createIssue(found.code, found.message, path, found.hint, walk.stepId))
  }
  return undefined
}

function checkArrayArgument(
  spec: SpecOf<'array'>,
  value: unknown,
  at: { parent: Path; key: Key; argParent: Path; depth: number },
  walk: ArgumentWalk,
): JsonValue | undefined {
  const { parent, key, argParent, depth } = at
  if (!Array.isArray(value))
    return fail(walk, parent, key, `Expected an array, got ${describe(value)}.`)
  if (spec.maxItems !== undefined && value.length > spec.maxItems)
    return fail(walk, parent, key, `Array has ${value.length} items (at most ${spec.maxItems}).`)
  if (depth >= MAX_ARGUMENT_DEPTH)
    return fail(walk, parent, key, `Value is nested deeper than ${MAX_ARGUMENT_DEPTH} levels.`)
  const path = [...parent, key]
  const argPath = [...argParent, key]
  const out: JsonValue[] = []
  let ok = true
  const length = value.length
  for (let index = 0; index < length; index += 1) {
    // Holes are skipped, as forEach would.
    if (!(index in value)) continue
    const item: unknown = value[index]
    const checked = checkArgumentValue(spec.items, item, path, index, argPath, depth + 1, walk)
    if (checked === undefined) ok = false
    else out.push(checked)
  }
  if (!ok) return undefined
  Object.freeze(out)
  return out
}

/**
 * Checks one argument value at `[...parent, key]` against its declaration and returns a clean,
 * frozen copy, or reports every problem and returns undefined. `argParent` is the same place
 * inside the step's args (for references), `depth` the nesting so far.
 */
export function checkArgumentValue(
  spec: ArgSpec,
  value: unknown,
  parent: Path,
  key: Key,
  argParent: Path,
  depth: number,
  walk: ArgumentWalk,
): JsonValue | undefined {
  if (isReference(value, walk.owned === true))
    return checkReference(value, parent, key, argParent, walk)
  switch (spec.type) {
    case 'string':
      return checkString(spec, value, parent, key, walk)
    case 'number':
      return checkNumber(spec, value, parent, key, walk)
    case 'boolean':
      return typeof value === 'boolean'
        ? value
        : fail(walk, parent, key, `Expected a boolean, got ${describe(value)}.`)
    case 'enum':
      return checkEnum(spec, value, parent, key, walk)
    case 'path':
      return checkPathArgument(spec, value, parent, key, walk)
    case 'command':
      return checkCommandArgument(value, parent, key, walk)
    case 'array':
      return checkArrayArgument(spec, value, { parent, key, argParent, depth }, walk)
    case 'json': {
      const budget = { bytes: spec.maxBytes ?? DEFAULT_MAX_STRING_LENGTH * 10 }
      return checkJsonArgument(value, { parent, key, argParent, depth }, walk, budget)
    }
  }
}
