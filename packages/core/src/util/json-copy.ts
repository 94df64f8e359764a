import { defineValue, isPlainObject, prototypesHaveToJson } from '@plan/json'
import { stringAt } from '@plan/shell/common'
import type { JsonValue } from '../types/json-value.js'
import { errorMessage } from './error-message.js'

/** Deepest nesting accepted in a live call's arguments or a tool's output. */
export const MAX_JSON_DEPTH = 64

/** A JSON copy, or why the value is not JSON data. */
export type JsonCopy =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly reason: string }

function copy(value: unknown, depth: number): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('a number that is NaN or infinite')
    return value
  }
  if (typeof value !== 'object') throw new TypeError(`a ${typeof value}`)
  if (depth >= MAX_JSON_DEPTH) throw new TypeError(`nesting deeper than ${MAX_JSON_DEPTH} levels`)
  if (Array.isArray(value)) {
    const out: JsonValue[] = []
    for (let index = 0; index < value.length; index += 1) {
      const descriptor = Object.getOwnPropertyDescriptor(value, index)
      if (
        descriptor === undefined ||
        descriptor.get !== undefined ||
        descriptor.set !== undefined
      ) {
        throw new TypeError('an array with holes or accessors')
      }
      out.push(copy(descriptor.value, depth + 1))
    }
    return out
  }
  if (!isPlainObject(value))
    throw new TypeError(`an instance of ${value.constructor?.name ?? 'a class'}`)
  const out: { [key: string]: JsonValue } = {}
  for (const key of Object.keys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key)
    // Getters could answer differently when the tool reads them; only plain data is copied.
    if (descriptor === undefined || descriptor.get !== undefined || descriptor.set !== undefined) {
      throw new TypeError(`an accessor property ${JSON.stringify(key)}`)
    }
    if (descriptor.value === undefined) continue
    // Plain assignment is much faster; only `__proto__` would reach a setter on a fresh object.
    if (key === '__proto__') defineValue(out, key, copy(descriptor.value, depth + 1))
    else out[key] = copy(descriptor.value, depth + 1)
  }
  return out
}

/**
 * Copies live data that must already be JSON: plain objects and arrays of strings, finite
 * numbers, booleans and null. Keys whose value is `undefined` are dropped (as JSON does);
 * anything else (class instances, functions, getters, cycles, deep nesting) is refused.
 */
export function copyJson(value: unknown): JsonCopy {
  try {
    return { ok: true, value: copy(value, 0) }
  } catch (error) {
    return {
      ok: false,
      reason: error instanceof TypeError ? error.message : 'a value that cannot be read',
    }
  }
}

/** What {@link plainCopy} answers for a value it leaves to `JSON.stringify`. */
const NOT_PLAIN: unique symbol = Symbol('not plain')

/** Most characters `JSON.stringify` writes for a finite number (`-1.2345678901234567e-308`). */
const NUMBER_TEXT = 25

/** Characters of JSON text a copy may still be, at most, before `JSON.stringify` must measure it. */
interface TextRoom {
  left: number
}

/** An own data property's value; {@link NOT_PLAIN} for an accessor. */
function dataValue(target: object, key: string | number): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(target, key)
  if (descriptor === undefined) return undefined
  return descriptor.get !== undefined || descriptor.set !== undefined ? NOT_PLAIN : descriptor.value
}

function plainArray(
  value: readonly unknown[],
  depth: number,
  room: TextRoom,
): JsonValue[] | typeof NOT_PLAIN {
  // Of its exact length, as JSON.parse makes it: a push would leave spare room in every array kept.
  const out: JsonValue[] = new Array(value.length)
  room.left -= 2 + value.length
  for (let index = 0; index < value.length; index += 1) {
    const item = dataValue(value, index)
    // A hole or `undefined` in an array is written as null.
    const copied = item === undefined ? null : plainCopy(item, depth + 1, room)
    if (copied === NOT_PLAIN) return NOT_PLAIN
    if (item === undefined) room.left -= 4
    // An index a prototype has (a setter, say) is defined, not assigned, as JSON.parse makes it.
    if (index in out) defineValue(out, index, copied)
    else out[index] = copied
  }
  return out
}

function plainObject(value: object, depth: number, room: TextRoom): JsonValue | typeof NOT_PLAIN {
  const out: { [key: string]: JsonValue } = {}
  room.left -= 2
  const keys = Object.keys(value)
  for (let index = 0; index < keys.length; index += 1) {
    const key = stringAt(keys, index)
    const item = dataValue(value, key)
    if (item === undefined) continue
    const copied = plainCopy(item, depth + 1, room)
    if (copied === NOT_PLAIN) return NOT_PLAIN
    room.left -= 4 + 6 * key.length
    // A key a prototype has (`__proto__`, a setter) is defined, not assigned, as JSON.parse makes it.
    if (key in out) defineValue(out, key, copied)
    else out[key] = copied
  }
  return out
}

/**
 * `JSON.parse(JSON.stringify(value))`, made directly where certainly the same: plain objects and
 * arrays of data properties, strings, finite numbers, booleans and null, nested under
 * {@link MAX_JSON_DEPTH} levels, the text within `room`. Anything else (a getter, `toJSON`, a class
 * instance, NaN, a function) is {@link NOT_PLAIN}, before any getter ran, left to `JSON.stringify`.
 */
function plainCopy(value: unknown, depth: number, room: TextRoom): JsonValue | typeof NOT_PLAIN {
  if (typeof value === 'string') {
    // Each UTF-16 unit is written as at most six characters (`\u001f`).
    room.left -= 2 + 6 * value.length
    return room.left < 0 ? NOT_PLAIN : value
  }
  if (typeof value === 'number') {
    room.left -= NUMBER_TEXT
    // JSON text has no negative zero.
    return Number.isFinite(value) ? value + 0 : NOT_PLAIN
  }
  if (value === null || typeof value === 'boolean') {
    room.left -= 5
    return value
  }
  if (typeof value !== 'object' || depth >= MAX_JSON_DEPTH || room.left < 0) return NOT_PLAIN
  const prototype = Object.getPrototypeOf(value)
  if (Object.hasOwn(value, 'toJSON')) return NOT_PLAIN
  if (Array.isArray(value))
    return prototype === Array.prototype ? plainArray(value, depth, room) : NOT_PLAIN
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN
  return plainObject(value, depth, room)
}

/** {@link plainCopy} of a whole output; undefined when `JSON.stringify` must make it. */
function plainOutput(value: unknown, maxBytes: number): JsonCopy | undefined {
  if (prototypesHaveToJson()) return undefined
  const room: TextRoom = { left: maxBytes }
  try {
    const copied = plainCopy(value, 0, room)
    return copied === NOT_PLAIN || room.left < 0 ? undefined : { ok: true, value: copied }
  } catch {
    // a revoked proxy, say: JSON.stringify says what it is
    return undefined
  }
}

/**
 * Converts a tool's output to JSON as `JSON.stringify` would (`toJSON` honoured, `undefined`
 * becomes null), refusing cycles, BigInts, throwing getters and text longer than `maxBytes`.
 * Plain data is copied without the text (see {@link plainCopy}); the answer is the same.
 */
export function outputToJson(value: unknown, maxBytes: number): JsonCopy {
  return plainOutput(value, maxBytes) ?? outputToJsonByText(value, maxBytes)
}

/** {@link outputToJson} through the JSON text: `JSON.parse(JSON.stringify(value))`. */
export function outputToJsonByText(value: unknown, maxBytes: number): JsonCopy {
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (error) {
    const reason = errorMessage(error)
    return { ok: false, reason: `the output is not JSON (${reason})` }
  }
  if (text === undefined) return { ok: true, value: null }
  if (text.length > maxBytes)
    return { ok: false, reason: `the output is larger than ${maxBytes} bytes as JSON` }
  // What JSON.parse makes is plain JSON data already: only its depth is left to check.
  const parsed: JsonValue = JSON.parse(text)
  if (nestsTooDeep(parsed, 0))
    return {
      ok: false,
      reason: `the output is not JSON (nesting deeper than ${MAX_JSON_DEPTH} levels)`,
    }
  return { ok: true, value: parsed }
}

/** True when an array or object sits `MAX_JSON_DEPTH` levels deep or more, as `copyJson` counts. */
function nestsTooDeep(value: JsonValue, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (depth >= MAX_JSON_DEPTH) return true
  if (Array.isArray(value)) {
    for (const item of value) if (nestsTooDeep(item, depth + 1)) return true
    return false
  }
  for (const item of Object.values(value)) if (nestsTooDeep(item, depth + 1)) return true
  return false
}

/** Freezes a JSON value in place, so it can be shared without copies. */
export function freezeJson<T extends JsonValue>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const entry of Object.values(value)) freezeJson(entry)
  }
  return value
}
