/**
 * JSON text of a value with object keys sorted, so two equal inputs give the same text
 * whatever their key order. Returns undefined for values that are not plain JSON (cycles,
 * functions, class instances), which callers treat as "not equal to anything".
 */
export function canonicalJson(value: unknown): string | undefined {
  const seen = new Set<object>()
  const visit = (current: unknown): unknown => {
    if (current === null || typeof current === 'string' || typeof current === 'boolean') {
      return current
    }
    if (typeof current === 'number') return Number.isFinite(current) ? current : undefined
    if (typeof current !== 'object') throw new TypeError('not JSON')
    if (seen.has(current)) throw new TypeError('cycle')
    seen.add(current)
    let result: unknown
    if (Array.isArray(current)) {
      result = current.map(visit)
    } else {
      const prototype = Object.getPrototypeOf(current)
      if (prototype !== Object.prototype && prototype !== null) throw new TypeError('not JSON')
      const sorted: Record<string, unknown> = Object.create(null)
      for (const key of Object.keys(current).sort()) {
        sorted[key] = visit((current as Record<string, unknown>)[key])
      }
      result = sorted
    }
    seen.delete(current)
    return result
  }
  try {
    return JSON.stringify(visit(value))
  } catch {
    return undefined
  }
}
