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

/** Why a value of the right type is refused: a message, or a message and a hint. */
type Refusal = string | { readonly message: string; readonly hint: string }

/**
 * A string's length as JSON Schema's `minLength` and `maxLength` count it, and as a server that
 * validates with its tool's input schema does: in code points (a surrogate pair is one).
 */
function codePoints(value: string): number {
  let count = 0
  for (const _ of value) count += 1
  return count
}

function stringRefusal(spec: SpecOf<'string'>, value: string): Refusal | undefined {
  const max = spec.maxLength ?? DEFAULT_MAX_STRING_LENGTH
  // Code points number half to all of the UTF-16 units: count them only if units can't decide.
  const length = value.length > max ? codePoints(value) : value.length
  if (length > max)
    return {
      message: `String is ${length} characters long (at most ${max}).`,
      hint: 'Send a shorter value.',
    }
  const min = spec.minLength
  if (min !== undefined && value.length < 2 * min && codePoints(value) < min)
    return `String is shorter than ${min} characters.`
  if (hasPattern(spec) && !policyPattern(spec).test(value))
    return `String does not match the pattern ${spec.pattern}.`
  if (spec.format === 'url') {
    const checked = checkUrl(value, { schemes: spec.schemes ?? ['https'], hosts: spec.hosts })
    if (!checked.ok) return checked
  }
  return undefined
}

function numberRefusal(spec: SpecOf<'number'>, value: number): Refusal | undefined {
  if (spec.integer === true && !Number.isInteger(value)) return 'Expected an integer.'
  if (spec.minimum !== undefined && value < spec.minimum)
    return `Number is below the minimum ${spec.minimum}.`
  if (spec.maximum !== undefined && value > spec.maximum)
    return `Number is above the maximum ${spec.maximum}.`
  return undefined
}

/** Reports `refusal` at `key` of `at`, when there is one; true when there was. */
function refused(walk: ArgumentWalk, at: Path, key: Key, refusal: Refusal | undefined): boolean {
  if (refusal === undefined) return false
  if (typeof refusal === 'string') fail(walk, at, key, refusal)
  else fail(walk, at, key, refusal.message, refusal.hint)
  return true
}

/** A value a path or command check allowed, which is always a string. */
function allowedString(value: unknown, at: Path, key: Key, walk: ArgumentWalk) {
  return typeof value === 'string'
    ? value
    : fail(walk, at, key, `Expected a string, got ${describe(value)}.`)
}

// Path and command checks inside checkArgumentValue cost small plans more instructions (callgrind).
function checkPathArgument(
  spec: SpecOf<'path'>,
  value: unknown,
  at: Path,
  key: Key,
  walk: ArgumentWalk,
): JsonValue | undefined {
  const denied = findPathDenial(value, walk.scope, spec.access)
  if (denied === undefined) return allowedString(value, at, key, walk)
  return fail(walk, at, key, denied.message, denied.hint, denied.code)
}

function checkCommandArgument(value: unknown, at: Path, key: Key, walk: ArgumentWalk) {
  const result = walk.checkCommand(value)
  if (result.allowed) return allowedString(value, at, key, walk)
  for (const found of result.issues) {
    const path = [...walk.base, ...at, key, ...found.path]
    walk.issues.push(createIssue(found.code, found.message, path, found.hint, walk.stepId))
  }
  return undefined
}

function checkArrayArgument(
  spec: SpecOf<'array'>,
  value: unknown,
  at: Path,
  key: Key,
  walk: ArgumentWalk,
): JsonValue | undefined {
  if (!Array.isArray(value))
    return fail(walk, at, key, `Expected an array, got ${describe(value)}.`)
  if (spec.maxItems !== undefined && value.length > spec.maxItems)
    return fail(walk, at, key, `Array has ${value.length} items (at most ${spec.maxItems}).`)
  if (at.length >= MAX_ARGUMENT_DEPTH)
    return fail(walk, at, key, `Value is nested deeper than ${MAX_ARGUMENT_DEPTH} levels.`)
  const inner = [...at, key]
  const out: JsonValue[] = []
  let ok = true
  const length = value.length
  for (let index = 0; index < length; index += 1) {
    // Holes are skipped, as forEach would.
    if (!(index in value)) continue
    const item: unknown = value[index]
    const checked = checkArgumentValue(spec.items, item, inner, index, walk)
    if (checked === undefined) ok = false
    else out.push(checked)
  }
  if (!ok) return undefined
  Object.freeze(out)
  return out
}

/**
 * Checks argument value `key` of `at` (its place in the step's args; `at.length` is its nesting)
 * against `spec`: a clean, frozen copy, or undefined with every problem reported.
 */
export function checkArgumentValue(
  spec: ArgSpec,
  value: unknown,
  at: Path,
  key: Key,
  walk: ArgumentWalk,
): JsonValue | undefined {
  if (isReference(value, walk.owned === true)) return checkReference(value, at, key, walk)
  switch (spec.type) {
    case 'string':
      if (typeof value !== 'string')
        return fail(walk, at, key, `Expected a string, got ${describe(value)}.`)
      return refused(walk, at, key, stringRefusal(spec, value)) ? undefined : value
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value))
        return fail(walk, at, key, `Expected a finite number, got ${describe(value)}.`)
      return refused(walk, at, key, numberRefusal(spec, value)) ? undefined : value
    case 'boolean':
      return typeof value === 'boolean'
        ? value
        : fail(walk, at, key, `Expected a boolean, got ${describe(value)}.`)
    case 'enum': {
      if (isScalar(value) && spec.values.some((allowed) => allowed === value)) return value
      const allowed = spec.values.map((entry) => JSON.stringify(entry)).join(', ')
      const hint = `Use one of: ${allowed}.`
      return fail(walk, at, key, 'Value is not one of the allowed values.', hint)
    }
    case 'path':
      return checkPathArgument(spec, value, at, key, walk)
    case 'command':
      return checkCommandArgument(value, at, key, walk)
    case 'array':
      return checkArrayArgument(spec, value, at, key, walk)
    case 'json': {
      const budget = { walk, bytes: spec.maxBytes ?? DEFAULT_MAX_STRING_LENGTH * 10 }
      return checkJsonArgument(value, at, key, budget)
    }
  }
}
