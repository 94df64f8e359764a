import { hasUnsafeCharacter } from '../util/unsafe-characters.js'

/** Rounds of decoding tried before a value is refused as nested too deep. */
const MAX_DECODING_ROUNDS = 4

// Characters that Windows "best-fit" code pages and lenient decoders (IIS) turn into `.`, `/` or
// `\`: fullwidth forms, division slash, set minus, fraction slash, one-dot leader, small forms.
const LOOKALIKES = new Set([
  0xff0e, 0xff0f, 0xff3c, 0x2215, 0x2216, 0x2044, 0x2024, 0x2025, 0xfe52, 0xfe68, 0x29f5, 0x29f8,
  0x29f9, 0x3002, 0xff61,
])

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

function isHex(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x46) ||
    (code >= 0x61 && code <= 0x66)
  )
}

function hexAt(text: string, start: number, length: number): number | undefined {
  if (start + length > text.length) return undefined
  for (let index = start; index < start + length; index += 1)
    if (!isHex(text.charCodeAt(index))) return undefined
  return Number.parseInt(text.slice(start, start + length), 16)
}

/** True when a decoded character means something to a path, or hides text. */
function isDangerous(character: string): boolean {
  const code = character.codePointAt(0) ?? 0
  return (
    character === '.' ||
    character === '/' ||
    character === '\\' ||
    LOOKALIKES.has(code) ||
    hasUnsafeCharacter(character)
  )
}

interface Decoded {
  readonly text: string
  readonly problem?: string
}

/** Reads a run of `%XX` escapes starting at `start` as bytes. */
function readBytes(text: string, start: number): { bytes: number[]; end: number } {
  const bytes: number[] = []
  let index = start
  while (text.charCodeAt(index) === 0x25) {
    const byte = hexAt(text, index + 1, 2)
    if (byte === undefined) break
    bytes.push(byte)
    index += 3
  }
  return { bytes, end: index }
}

/**
 * Decodes `%XX` (as UTF-8 bytes) and IIS-style `%uXXXX` escapes once, leniently: a `%` that
 * starts no escape stays text. Reports the first escape that decodes to `.`, `/`, `\`, a
 * look-alike of one of them, or an unsafe character, and any byte run that is not strict
 * UTF-8 (overlong forms such as `%c0%ae` decode to `.` in lenient decoders).
 */
function decodeOnce(text: string): Decoded {
  let out = ''
  let index = 0
  while (index < text.length) {
    const percent = text.indexOf('%', index)
    if (percent === -1) {
      out += text.slice(index)
      break
    }
    out += text.slice(index, percent)
    const next = text.charCodeAt(percent + 1)
    const unit = next === 0x75 || next === 0x55 ? hexAt(text, percent + 2, 4) : undefined
    if (unit !== undefined) {
      const character = String.fromCharCode(unit)
      if (isDangerous(character))
        return { text, problem: `"${text.slice(percent, percent + 6)}" (a %u escape)` }
      out += character
      index = percent + 6
      continue
    }
    const { bytes, end } = readBytes(text, percent)
    if (bytes.length === 0) {
      out += '%'
      index = percent + 1
      continue
    }
    let decoded: string
    try {
      decoded = decoder.decode(new Uint8Array(bytes))
    } catch {
      return {
        text,
        problem: `"${text.slice(percent, end)}" (not valid UTF-8: an overlong or truncated sequence)`,
      }
    }
    for (const character of decoded)
      if (isDangerous(character)) return { text, problem: `"${text.slice(percent, end)}"` }
    out += decoded
    index = end
  }
  return { text: out }
}

/**
 * Why a path's percent escapes are refused, or undefined when they are harmless text. A
 * tool or a server that decodes the path once more must not find a `.`, `/` or `\` that the
 * check did not see: `%2e`, `%2F`, `%5c`, IIS `%u002e` and `%u2215`, overlong UTF-8 (`%c0%ae`,
 * `%e0%80%af`), best-fit look-alikes (`%uff0e`, `%ef%bc%8e`), and the same behind more rounds of
 * encoding (`%252e`, `%%32%65`). `%20`, `%41`, `50%.pdf` and `100%` stay allowed.
 */
export function findEncodedTraversal(value: string): string | undefined {
  let current = value
  for (let round = 1; round <= MAX_DECODING_ROUNDS; round += 1) {
    if (!current.includes('%')) return undefined
    const decoded = decodeOnce(current)
    if (decoded.problem !== undefined)
      return round === 1
        ? `${decoded.problem}, which decodes to ".", "/", "\\" or a hidden character`
        : `${decoded.problem} once percent-decoded ${round - 1} time${round === 2 ? '' : 's'} (double encoding)`
    if (decoded.text === current) return undefined
    current = decoded.text
  }
  return decodeOnce(current).text === current ? undefined : 'percent escapes nested too deep'
}

/**
 * Why a path contains characters that Unicode compatibility normalisation (NFKC, applied by
 * some tools and file systems) turns into a separator or a `.`/`..` segment — fullwidth `／`,
 * `＼`, `．．`, the two-dot leader `‥` — or undefined when it does not. (`…` becomes `...`,
 * an ordinary name, and stays allowed.)
 */
export function findNormalizedSeparator(value: string): string | undefined {
  const normalized = value.normalize('NFKC')
  if (normalized === value) return undefined
  for (const separator of ['/', '\\'])
    if (count(normalized, separator) > count(value, separator))
      return `characters that normalise (NFKC) to "${separator}"`
  for (const segment of value.split('/')) {
    const after = segment.normalize('NFKC')
    if ((after === '.' || after === '..') && segment !== after)
      return `a segment that normalises (NFKC) to "${after}"`
  }
  const encoded = findEncodedTraversal(normalized)
  return encoded === undefined
    ? undefined
    : `fullwidth percent escapes: once normalised (NFKC), ${encoded}`
}

function count(text: string, character: string): number {
  let total = 0
  for (
    let index = text.indexOf(character);
    index !== -1;
    index = text.indexOf(character, index + 1)
  )
    total += 1
  return total
}
