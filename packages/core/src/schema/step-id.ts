/** Longest accepted step id. */
export const MAX_STEP_ID_LENGTH = 128

/** What a step id may contain: letters, digits, `_` and `-` (no dots: they separate `$ref` fields). */
export const STEP_ID_PATTERN = /^[A-Za-z0-9_-]+$/
