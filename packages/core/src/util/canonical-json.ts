import { createHash } from 'node:crypto'

function sortedCopy(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value
  if (depth > 256) throw new RangeError('Value is nested too deeply to hash.')
  if (Array.isArray(value)) return value.map((item) => sortedCopy(item, depth + 1))
  const record = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(record).sort()) {
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
 * integer-like keys come first, in numeric order — the same for every input.)
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedCopy(value, 0)) ?? 'null'
}

/** SHA-256 (hex) of a value's canonical JSON. */
export function hashJson(value: unknown): string {
  return sha256(canonicalJson(value))
}

/** SHA-256 (hex) of a string. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
