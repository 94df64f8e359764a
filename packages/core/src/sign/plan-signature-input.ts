import { canonicalJson, sha256Hex, utf8 } from '@plan/json'
import type { CompiledPlan } from '../types/compiled-plan.js'

/** Prefix of every signature this version of `@plan/core` makes. */
export const SIGNATURE_PREFIX = 'v1.'
/** A signature's form: the prefix and a lower-case hex HMAC-SHA-256. */
export const SIGNATURE_PATTERN = /^v1\.[0-9a-f]{64}$/
/** Shortest accepted secret, in bytes (256 bits). */
export const MIN_SECRET_BYTES = 32

/**
 * The text a plan signature is an HMAC of: the plan's hash and a digest recomputed from its
 * steps (ids, tools, arguments, dependencies), so editing a step is caught even when the hash
 * was left as it was. Throws `TypeError` when the object is not shaped like a compiled plan.
 */
export function planSignatureInput(plan: CompiledPlan): string {
  if (typeof plan !== 'object' || plan === null || !Array.isArray(plan.steps))
    throw new TypeError('Not a compiled plan.')
  if (typeof plan.hash !== 'string') throw new TypeError('The plan has no hash.')
  const steps = plan.steps.map((step) => {
    if (typeof step !== 'object' || step === null) throw new TypeError('A step is not an object.')
    const dependsOn = Array.isArray(step.dependsOn) ? [...step.dependsOn].map(String).sort() : null
    return { args: step.args ?? null, dependsOn, id: step.id, tool: step.tool }
  })
  return `@plan/signature/v1\n${plan.hash}\n${sha256Hex(canonicalJson(steps))}`
}

/** The secret as bytes, or undefined when it is missing or shorter than {@link MIN_SECRET_BYTES}. */
export function secretBytes(secret: unknown): Uint8Array | undefined {
  let bytes: Uint8Array
  if (typeof secret === 'string') bytes = utf8(secret)
  else if (secret instanceof Uint8Array) bytes = new Uint8Array(secret)
  else return undefined
  return bytes.length >= MIN_SECRET_BYTES ? bytes : undefined
}
