import { hasOwnKey, isPlainObject } from '@plan/json'
import type { JsonValue } from '../types/json-value.js'
import { type ArgumentWalk, fail, type Key, type Path } from './argument-walk.js'

const HINT =
  'Write { "$ref": "<stepId>" } or { "$ref": "<stepId>.output.<field>" } naming an earlier step.'

/** True for a plain object with own `$ref` ({@link checkReference}); `parsed`: from JSON.parse. */
export function isReference(value: unknown, parsed = false): value is { $ref: unknown } {
  return isPlainObject(value, parsed) && hasOwnKey(value, '$ref')
}

/** True when an object has exactly one own enumerable key (as `Object.keys(value).length === 1`). */
function hasOneKey(value: object): boolean {
  let count = 0
  for (const key in value) if (hasOwnKey(value, key)) count += 1
  return count === 1
}

/**
 * Checks `{ "$ref": … }` at `key` of `at`: well-formed, naming another step of the plan. Records it
 * in `walk.references` and returns a frozen copy (itself if `walk.owned`), or reports the refusal.
 */
export function checkReference(
  value: Record<string, unknown>,
  at: Path,
  key: Key,
  walk: ArgumentWalk,
): JsonValue | undefined {
  const target = value.$ref
  const plan = walk.plan
  if (plan === undefined) {
    const message = 'References are resolved before a call runs; a live call cannot carry one.'
    return fail(walk, at, key, message, 'Pass the value itself.', 'invalid_reference')
  }
  if (typeof target !== 'string' || !hasOneKey(value)) {
    const message = 'A reference must be an object with a single string "$ref".'
    return fail(walk, at, key, message, HINT, 'invalid_reference')
  }
  const dot = target.indexOf('.')
  const field = plan.parts.field(target, dot)
  if (field === undefined) {
    const message = `Reference ${JSON.stringify(target)} is malformed.`
    return fail(walk, at, key, message, HINT, 'invalid_reference')
  }
  const idLength = dot === -1 ? target.length : dot
  const selfId = walk.stepId
  if (selfId !== undefined && selfId.length === idLength && target.startsWith(selfId)) {
    const message = `Step ${JSON.stringify(selfId)} refers to its own output.`
    const hint = 'A step can only read the output of another, earlier step.'
    return fail(walk, at, key, message, hint, 'self_dependency')
  }
  const targetIndex = plan.ids.getPrefix(target, idLength)
  if (targetIndex === undefined) {
    const message = `Reference to unknown step ${JSON.stringify(target.slice(0, idLength))}.`
    return fail(walk, at, key, message, HINT, 'invalid_reference')
  }
  const path = plan.parts.path(at, key)
  const stepId = plan.idAt[targetIndex] ?? target.slice(0, idLength)
  walk.references.push(Object.freeze({ path, stepId, field }))
  plan.targets.push(targetIndex)
  // An owned reference is `{ "$ref": <string> }` and nothing else: frozen, it is its own copy.
  return walk.owned === true ? (Object.freeze(value) as JsonValue) : Object.freeze({ $ref: target })
}
