// Reads of an index the caller has bounded (a loop over the array, a node number of a table
// built with it), typed without `undefined`. A read out of range, or of a hole, is a bug: it
// throws a RangeError instead of letting `undefined` pass on as a number or a string. One
// function per kind of array keeps each read site monomorphic where the compiler is hot.

function outOfRange(index: number | string): never {
  throw new RangeError(`no item at ${JSON.stringify(index)}`)
}

/** `items[index]` of any array; see {@link int32At} and its siblings for hot loops. */
export function itemAt<T>(items: ArrayLike<T>, index: number): Exclude<T, undefined> {
  const item = items[index]
  return item === undefined ? outOfRange(index) : (item as Exclude<T, undefined>)
}

/** `items[index]` of an `Int32Array`. */
export function int32At(items: Int32Array, index: number): number {
  const item = items[index]
  return item === undefined ? outOfRange(index) : item
}

/** `items[index]` of an array of numbers. */
export function numberAt(items: readonly number[], index: number): number {
  const item = items[index]
  return item === undefined ? outOfRange(index) : item
}

/** `items[index]` of an array of strings. */
export function stringAt(items: readonly string[], index: number): string {
  const item = items[index]
  return item === undefined ? outOfRange(index) : item
}

/** `record[key]` for a key the caller found on the record (`Object.hasOwn`, `Object.keys`). */
export function valueAt<T>(
  record: Readonly<Record<string, T>>,
  key: string,
): Exclude<T, undefined> {
  const value = record[key]
  return value === undefined ? outOfRange(key) : (value as Exclude<T, undefined>)
}

/** `items.pop()` of an array the caller knows is not empty (a `while (stack.length > 0)` loop). */
export function popped<T>(items: T[]): Exclude<T, undefined> {
  const item = items.pop()
  return item === undefined ? outOfRange(items.length) : (item as Exclude<T, undefined>)
}
