import { canonicalJson } from '@plan/json'
import { sha256Hex } from './portable-crypto.js'

export { canonicalJson, prototypesHaveToJson } from '@plan/json'

/** SHA-256 (hex) of a value's canonical JSON. */
export function hashJson(value: unknown): string {
  return sha256(canonicalJson(value))
}

/** {@link hashJson}, or null for a value that has no canonical JSON (a cycle, a BigInt). */
export function hashJsonOrNull(value: unknown): string | null {
  try {
    return hashJson(value)
  } catch {
    return null
  }
}

/** SHA-256 (hex) of a string. */
export function sha256(text: string): string {
  return sha256Hex(text)
}
