/**
 * The characters that no path, command or rendered label may carry, because they are invisible,
 * reorder the text around them, or drive a terminal: so what a reviewer reads is what runs.
 *
 * - `Cc`: C0 controls (NUL, ESC, newline…), DEL and the C1 controls (U+0080–U+009F).
 * - `Cf`: every format character: the bidirectional controls (U+061C, U+200E, U+200F,
 *   U+202A–U+202E, U+2066–U+2069; the "Trojan Source" attack, CVE-2021-42574), zero-width
 *   characters (U+200B–U+200D, U+2060–U+2064), U+00AD soft hyphen, U+FEFF, the interlinear
 *   annotation marks U+FFF9–U+FFFB and the tag characters U+E0001, U+E0020–U+E007F (used to
 *   smuggle hidden ASCII text).
 * - `Default_Ignorable_Code_Point`: characters fonts draw as nothing (U+034F, U+115F, U+3164,
 *   U+FFA0, variation selectors U+FE00–U+FE0D and U+E0100–U+E01EF, U+180B–U+180F, …). The
 *   text and emoji presentation selectors U+FE0E and U+FE0F stay allowed: everyday emoji
 *   (`❤️`) carry them.
 * - `Zl`, `Zp`: U+2028 and U+2029, line breaks to JavaScript and many terminals.
 * - `Cs`: a lone surrogate, which the file system encodes as U+FFFD (a different name).
 */
export const UNSAFE_CHARACTER_CLASS =
  '\\p{Cc}\\p{Cf}\\p{Default_Ignorable_Code_Point}\\p{Zl}\\p{Zp}\\p{Cs}'

const PRESENTATION_SELECTORS = '\\uFE0E\\uFE0F'
const UNSAFE_SOURCE = `(?![${PRESENTATION_SELECTORS}])[${UNSAFE_CHARACTER_CLASS}]`
// Tab and newline are left to the command grammar, which reports them as a word break or a list.
const UNSAFE_IN_COMMAND_SOURCE = `(?![\\t\\n${PRESENTATION_SELECTORS}])[${UNSAFE_CHARACTER_CLASS}]`

// Built on first use: parsing the Unicode property classes takes a while at start-up, and a
// program needs one or two of the three.
let unsafe: RegExp | undefined
let unsafeGlobal: RegExp | undefined
let unsafeInCommand: RegExp | undefined

/** True when `value` contains an {@link UNSAFE_CHARACTER_CLASS unsafe character}. */
export function hasUnsafeCharacter(value: string): boolean {
  unsafe ??= new RegExp(UNSAFE_SOURCE, 'u')
  return unsafe.test(value)
}

/**
 * True when a command line contains an unsafe character other than tab and newline (which the
 * command checker reads as a word break and a command list).
 */
export function hasUnsafeCommandCharacter(value: string): boolean {
  unsafeInCommand ??= new RegExp(UNSAFE_IN_COMMAND_SOURCE, 'u')
  return unsafeInCommand.test(value)
}

/** True for one code point that is an unsafe character. */
export function isUnsafeCodePoint(codePoint: number): boolean {
  return hasUnsafeCharacter(String.fromCodePoint(codePoint))
}

/** Replaces every unsafe character with `replacement`, for text shown in a terminal or a page. */
export function replaceUnsafeCharacters(value: string, replacement = '?'): string {
  unsafeGlobal ??= new RegExp(UNSAFE_SOURCE, 'gu')
  return value.replace(unsafeGlobal, replacement)
}
