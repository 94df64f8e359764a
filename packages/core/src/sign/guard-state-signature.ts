import { canonicalJson, equalBytes, fromHex, hmacSha256, toHex } from '@plan/json'
import { SIGNATURE_PATTERN, SIGNATURE_PREFIX } from './plan-signature-input.js'

/**
 * The text a saved state's signature is an HMAC-SHA-256 of: a fixed label (so that no other
 * signature of `@plan`, such as a plan's, can pass for one) and the canonical JSON of the run
 * id, the revision and the state. Throws `TypeError` or `RangeError` when they are not JSON.
 */
export function stateSignatureInput(runId: string, revision: number, state: unknown): string {
  return `@plan/guard-state/v1\n${canonicalJson({ revision, runId, state })}`
}

/** Signs a run's state with `key`: `v1.` and the HMAC's lower-case hex. */
export function signGuardState(
  key: Uint8Array,
  runId: string,
  revision: number,
  state: unknown,
): string {
  return SIGNATURE_PREFIX + toHex(hmacSha256(key, stateSignatureInput(runId, revision, state)))
}

/** True when `signature` has the form {@link signGuardState} gives. */
export function isStateSignature(signature: unknown): signature is string {
  return typeof signature === 'string' && SIGNATURE_PATTERN.test(signature)
}

/**
 * True when `signature` was made by {@link signGuardState} with one of `keys` for exactly this run
 * id, revision and state. All keys are tried in constant time; timing leaks no signature or key.
 */
export function verifyGuardState(
  keys: readonly Uint8Array[],
  runId: string,
  revision: number,
  state: unknown,
  signature: string,
): boolean {
  const given = fromHex(signature.slice(SIGNATURE_PREFIX.length))
  const input = stateSignatureInput(runId, revision, state)
  let valid = false
  for (const key of keys) valid = equalBytes(hmacSha256(key, input), given) || valid
  return valid
}
