function write(value: unknown, depth: number): string {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'boolean':
      return value ? 'true' : 'false'
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('Not JSON: a non-finite number.')
      // ECMAScript's Number serialization is the one RFC 8785 prescribes (-0 becomes 0).
      return JSON.stringify(value)
    case 'object':
      break
    default:
      throw new TypeError(`Not JSON: a ${typeof value}.`)
  }
  if (depth > 256) throw new RangeError('Value is nested too deeply to canonicalize.')
  if (Array.isArray(value)) {
    const items: string[] = []
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index]
      items.push(item === undefined ? 'null' : write(item, depth + 1))
    }
    return `[${items.join(',')}]`
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) {
    throw new TypeError('Not JSON: an object that is not a plain object.')
  }
  const record = value as Record<string, unknown>
  const members: string[] = []
  // The default sort compares UTF-16 code units, the order RFC 8785 prescribes for every key.
  for (const key of Object.keys(record).sort()) {
    const member = record[key]
    if (member === undefined) continue
    members.push(`${JSON.stringify(key)}:${write(member, depth + 1)}`)
  }
  return `{${members.join(',')}}`
}

/**
 * The RFC 8785 (JSON Canonicalization Scheme) text of a JSON value: object keys sorted by UTF-16
 * code units at every level, no white space, ECMAScript number and string serialization. Members
 * whose value is `undefined` are left out; anything that is not JSON (functions, symbols, BigInt,
 * non-finite numbers, class instances, cycles) throws.
 */
export function rfc8785Json(value: unknown): string {
  return write(value, 0)
}
