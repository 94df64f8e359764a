const ownProperty = Object.prototype.hasOwnProperty

/**
 * `Object.hasOwn(value, key)`, for the guard of a `for (key in value)` loop: there the engine
 * answers this form from the loop's key cache, while `Object.hasOwn` stays a call.
 */
export function hasOwnKey(value: object, key: PropertyKey): boolean {
  return ownProperty.call(value, key)
}
