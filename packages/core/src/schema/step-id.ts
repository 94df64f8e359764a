/** Longest accepted step id. */
export const MAX_STEP_ID_LENGTH = 128

/** What a step id may contain: letters, digits, `_` and `-` (no dots: they separate `$ref` fields). */
export const STEP_ID_PATTERN = /^[A-Za-z0-9_-]+$/

/** {@link STEP_ID_PATTERN} as a loop over the characters: the compiler tests every step's id. */
export function matchesStepIdPattern(value: string): boolean {
  if (value.length === 0) return false
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index)
    const letter = (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a
    const digit = code >= 0x30 && code <= 0x39
    if (!letter && !digit && code !== 0x5f && code !== 0x2d) return false
  }
  return true
}
