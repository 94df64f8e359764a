/** Lengths up to which {@link unsetSlots} pushes: `fill` is a call into the runtime each time. */
const PUSHED = 16

/**
 * An array of `length` slots, each `undefined` (no holes): filled by pushes when short, as
 * most are (a turn's plan has one step), else by `fill`, which leaves no spare capacity.
 */
export function unsetSlots<V>(length: number): (V | undefined)[] {
  if (length > PUSHED) return new Array<V | undefined>(length).fill(undefined)
  const slots: (V | undefined)[] = []
  for (let index = 0; index < length; index += 1) slots.push(undefined)
  return slots
}

/** Sets every slot of `slots` to `undefined` again, in place (as {@link unsetSlots} makes them). */
export function clearSlots<V>(slots: (V | undefined)[]): void {
  if (slots.length > PUSHED) slots.fill(undefined)
  else for (let index = 0; index < slots.length; index += 1) slots[index] = undefined
}
