/**
 * A list of names for a message: all of them when there are `max` or fewer, else the first
 * `max` and how many more (`a, b and 8 more (10 in all)`), so a refusal stays short.
 */
export function someOf(names: readonly string[], max: number): string {
  if (names.length <= max) return names.join(', ')
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more (${names.length} in all)`
}
