import { isPlainObject } from './is-plain-object.js'

const MAX_ARRAY_INDEX = 4294967294

/** True for a key that JSON.stringify emits before the others: an array index, "0" to "4294967294". */
function isArrayIndex(key: string): boolean {
  const length = key.length
  if (length === 0 || length > 10) return false
  const first = key.charCodeAt(0)
  if (first < 0x30 || first > 0x39 || (first === 0x30 && length > 1)) return false
  for (let index = 1; index < length; index += 1) {
    const code = key.charCodeAt(index)
    if (code < 0x30 || code > 0x39) return false
  }
  return length < 10 || Number(key) <= MAX_ARRAY_INDEX
}

function byIndex(left: string, right: string): number {
  return Number(left) - Number(right)
}

/**
 * An object's keys in the order of canonical JSON: array indices first in numeric order (as
 * JSON.stringify emits them from any object), then the others sorted by UTF-16 code units.
 */
function canonicalKeys(record: object): string[] {
  const keys = Object.keys(record).sort()
  const indices: string[] = []
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] ?? ''
    const first = key.charCodeAt(0)
    if (first >= 0x30 && first <= 0x39 && isArrayIndex(key)) indices.push(key)
  }
  if (indices.length === 0) return keys
  const named = keys.filter((key) => !isArrayIndex(key))
  return [...indices.sort(byIndex), ...named]
}

/** An object's keys in the order a canonical form writes them. */
export type KeyOrder = (record: object) => readonly string[]

/**
 * The canonical text of a JSON value with object keys in `keysOf` order at every level, no white
 * space, ECMAScript number and string serialization; members whose value is `undefined` are left
 * out, and anything that is not JSON (functions, symbols, BigInt, non-finite numbers, class
 * instances, cycles) throws.
 */
export function writeCanonical(value: unknown, keysOf: KeyOrder, depth = 0): string {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'boolean':
      return value ? 'true' : 'false'
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('Not JSON: a non-finite number.')
      return JSON.stringify(value)
    case 'object':
      break
    default:
      throw new TypeError(`Not JSON: a ${typeof value}.`)
  }
  // A cycle ends here too.
  if (depth > 256) throw new RangeError('Value is nested too deeply to write canonically.')
  if (Array.isArray(value)) {
    let text = '['
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) text += ','
      text += writeCanonical(value[index] ?? null, keysOf, depth + 1)
    }
    return `${text}]`
  }
  if (!isPlainObject(value)) throw new TypeError('Not JSON: an object that is not a plain object.')
  const record = value
  let text = '{'
  for (const key of keysOf(record)) {
    const member = record[key]
    if (member === undefined) continue
    if (text.length > 1) text += ','
    text += `${JSON.stringify(key)}:${writeCanonical(member, keysOf, depth + 1)}`
  }
  return `${text}}`
}

/**
 * True when `JSON.stringify(value)` is already the canonical text: JSON data (no function,
 * symbol, BigInt, non-finite number or class instance) whose named keys are in sorted order at
 * every level. JSON.stringify itself puts array-index keys first, in numeric order.
 */
function inCanonicalOrder(value: unknown, depth: number): boolean {
  if (value === null) return true
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return Number.isFinite(value)
    case 'object':
      break
    default:
      return false
  }
  if (depth > 256) return false
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index]
      if (item !== undefined && !inCanonicalOrder(item, depth + 1)) return false
    }
    return true
  }
  if (!isPlainObject(value)) return false
  const record = value
  let previous: string | undefined
  for (const key of Object.keys(record)) {
    const first = key.charCodeAt(0)
    if (!(first >= 0x30 && first <= 0x39 && isArrayIndex(key))) {
      if (previous !== undefined && previous >= key) return false
      previous = key
    }
    const member = record[key]
    if (member !== undefined && !inCanonicalOrder(member, depth + 1)) return false
  }
  return true
}

/** JSON.stringify would call a `toJSON` put on a built-in prototype; the canonical text must not. */
export function prototypesHaveToJson(): boolean {
  return 'toJSON' in Object.prototype || 'toJSON' in Array.prototype
}

/**
 * JSON text of a value whose object keys were inserted in sorted order at every level, so equal
 * values give equal text whatever their key order. (As in any JSON.stringify output,
 * integer-like keys come first, in numeric order — the same for every input.) Members whose
 * value is `undefined` are left out, as JSON.stringify does; anything else that is not JSON
 * (functions, symbols, BigInt, NaN, class instances, cycles) throws, so two such values are
 * never taken as equal.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null'
  // Keys already in order (most values): the engine's own JSON.stringify gives the text.
  if (inCanonicalOrder(value, 0) && !prototypesHaveToJson()) return JSON.stringify(value)
  // Written straight to text: no sorted copy of the value.
  return writeCanonical(value, canonicalKeys)
}
