import { canonicalJson } from './canonical-json.js'
import { sha256Hex } from './portable-crypto.js'

/** SHA-256 (hex) of a value's canonical JSON. */
export function hashJson(value: unknown): string {
  return sha256Hex(canonicalJson(value))
}

/** {@link hashJson}, or null for a value that has no canonical JSON (a cycle, a BigInt). */
export function hashJsonOrNull(value: unknown): string | null {
  try {
    return hashJson(value)
  } catch {
    return null
  }
}
