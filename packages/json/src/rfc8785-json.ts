import { writeCanonical } from './canonical-json.js'

// The default sort compares UTF-16 code units, the order RFC 8785 prescribes for every key.
const sortedKeys = (record: object): string[] => Object.keys(record).sort()

/**
 * The RFC 8785 (JSON Canonicalization Scheme) text of a JSON value: object keys sorted by UTF-16
 * code units at every level, no white space, ECMAScript number and string serialization. Members
 * whose value is `undefined` are left out; anything that is not JSON (functions, symbols, BigInt,
 * non-finite numbers, class instances, cycles) throws.
 */
export function rfc8785Json(value: unknown): string {
  return writeCanonical(value, sortedKeys)
}
