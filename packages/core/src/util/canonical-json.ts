import { createHash } from 'node:crypto'

/**
 * JSON text with object keys sorted at every level, so equal values give equal text
 * whatever their key order. Expects JSON values (no cycles, no undefined).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return 'null'
    return JSON.stringify(value) ?? 'null'
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const record = value as Record<string, unknown>
  const keys = Object.keys(record).sort()
  const parts: string[] = []
  for (const key of keys) {
    const entry = record[key]
    if (entry === undefined) continue
    parts.push(`${JSON.stringify(key)}:${canonicalJson(entry)}`)
  }
  return `{${parts.join(',')}}`
}

/** SHA-256 (hex) of a value's canonical JSON. */
export function hashJson(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex')
}
