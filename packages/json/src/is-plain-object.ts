/**
 * True for an object made by a JSON parser or a literal: not an array, a class instance or null.
 * `parsed` says the value lies inside what `JSON.parse` returned, where every object is an array
 * or plain, so the prototype need not be read.
 */
export function isPlainObject(value: unknown, parsed = false): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  if (parsed) return true
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}
