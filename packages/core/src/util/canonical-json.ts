import { sha256Hex } from './portable-crypto.js'

function sortedCopy(value: unknown, depth: number): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('Not JSON: a non-finite number.')
    return value
  }
  if (typeof value !== 'object') throw new TypeError(`Not JSON: a ${typeof value}.`)
  // A cycle ends here too.
  if (depth > 256) throw new RangeError('Value is nested too deeply to hash.')
  if (Array.isArray(value)) return value.map((item) => sortedCopy(item ?? null, depth + 1))
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) {
    throw new TypeError('Not JSON: an object that is not a plain object.')
  }
  const record = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue
    // defineProperty, not assignment: a "__proto__" key must stay a plain member.
    Object.defineProperty(out, key, {
      value: sortedCopy(record[key], depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
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
  return value === undefined ? 'null' : (JSON.stringify(sortedCopy(value, 0)) as string)
}

/** SHA-256 (hex) of a value's canonical JSON. */
export function hashJson(value: unknown): string {
  return sha256(canonicalJson(value))
}

/** SHA-256 (hex) of a string. */
export function sha256(text: string): string {
  return sha256Hex(text)
}
