import { isForbiddenKey, isPlainObject } from '@plan/json'
import { describe } from '@plan/shell/common'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import {
  type ArgumentWalk,
  fail,
  type Key,
  MAX_ARGUMENT_DEPTH,
  type Path,
} from './argument-walk.js'
import { checkReference, isReference } from './check-reference.js'

/** The walk of a `json` argument and the bytes left for it (an estimate of its JSON text). */
interface JsonBudget {
  readonly walk: ArgumentWalk
  bytes: number
}

const TOO_LARGE = 'Value is larger than the declared maxBytes.'

/**
 * Copies JSON value `key` of `at` (place in the step's args; `at.length` is its nesting), refusing
 * non-JSON values, deep nesting, prototype keys and oversize; `$ref` objects inside are checked.
 */
export function checkJsonArgument(
  value: unknown,
  at: Path,
  key: Key,
  budget: JsonBudget,
): JsonValue | undefined {
  const walk = budget.walk
  if (at.length > MAX_ARGUMENT_DEPTH)
    return fail(walk, at, key, `Value is nested deeper than ${MAX_ARGUMENT_DEPTH} levels.`)
  if (value === null || typeof value === 'boolean') {
    budget.bytes -= 5
    return budget.bytes < 0 ? fail(walk, at, key, TOO_LARGE) : value
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      return fail(walk, at, key, 'Numbers must be finite (no NaN or Infinity).')
    budget.bytes -= 24
    return budget.bytes < 0 ? fail(walk, at, key, TOO_LARGE) : value
  }
  if (typeof value === 'string') {
    budget.bytes -= value.length + 2
    return budget.bytes < 0 ? fail(walk, at, key, TOO_LARGE) : value
  }
  if (Array.isArray(value)) return checkJsonArray(value, at, key, budget)
  if (isReference(value, walk.owned === true)) return checkReference(value, at, key, walk)
  if (isPlainObject(value, walk.owned === true)) return checkJsonObject(value, at, key, budget)
  return fail(walk, at, key, `Expected a JSON value, got ${describe(value)}.`)
}

function checkJsonArray(value: unknown[], at: Path, key: Key, budget: JsonBudget) {
  budget.bytes -= 2
  const inner = [...at, key]
  const out: JsonValue[] = []
  for (let index = 0; index < value.length && budget.bytes >= 0; index += 1) {
    const checked = checkJsonArgument(value[index], inner, index, budget)
    if (checked === undefined) return undefined
    out.push(checked)
  }
  if (budget.bytes < 0) return fail(budget.walk, at, key, TOO_LARGE)
  Object.freeze(out)
  return out
}

function checkJsonObject(value: Record<string, unknown>, at: Path, key: Key, budget: JsonBudget) {
  budget.bytes -= 2
  const inner = [...at, key]
  const out: JsonObject = {}
  for (const name of Object.keys(value).sort()) {
    if (isForbiddenKey(name)) {
      const message = `Key ${JSON.stringify(name)} is not accepted.`
      return fail(budget.walk, at, key, message, 'Rename the key; prototype keys are refused.')
    }
    budget.bytes -= name.length + 3
    const checked = checkJsonArgument(value[name], inner, name, budget)
    if (checked === undefined) return undefined
    out[name] = checked
    if (budget.bytes < 0) break
  }
  if (budget.bytes < 0) return fail(budget.walk, at, key, TOO_LARGE)
  return Object.freeze(out)
}
