import { stringAt } from '@plan/shell/common'
/**
 * Sorts `values` in place by UTF-16 code units, as `Array.prototype.sort` does: an insertion sort
 * for the usual handful (no comparator call per pair), the built-in sort beyond eight.
 */
export function sortSmall(values: string[]): string[] {
  if (values.length > 8) return values.sort()
  for (let index = 1; index < values.length; index += 1) {
    const value = stringAt(values, index)
    let slot = index
    while (slot > 0 && stringAt(values, slot - 1) > value) {
      values[slot] = stringAt(values, slot - 1)
      slot -= 1
    }
    values[slot] = value
  }
  return values
}
