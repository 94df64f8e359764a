import { equalBytes, fromHex, hmacSha256 } from '@plan/json'
import type { PlanIssue } from '@plan/shell/common'
import type { CompiledPlan } from '../types/compiled-plan.js'
import { errorMessage } from '../util/error-message.js'
import {
  MIN_SECRET_BYTES,
  planSignatureInput,
  SIGNATURE_PATTERN,
  SIGNATURE_PREFIX,
  secretBytes,
} from './plan-signature-input.js'

/** The answer of {@link verifyPlan}. */
export type PlanSignatureCheck =
  | { readonly valid: true }
  | { readonly valid: false; readonly issue: PlanIssue }

function invalid(message: string, hint: string): PlanSignatureCheck {
  return { valid: false, issue: { code: 'signature_invalid', message, path: [], hint } }
}

/**
 * Checks a signature made by `signPlan`: the HMAC is recomputed from the plan's hash and its
 * steps as they are now, and compared in constant time. Any edit to a step (or to the hash)
 * makes it invalid. Never throws; a short or missing secret is an invalid answer.
 *
 * @example
 * ```ts
 * const check = verifyPlan(plan, signature, secret)
 * if (!check.valid) throw new PlanError(check.issue.message, { issues: [check.issue] })
 * ```
 */
export function verifyPlan(
  plan: CompiledPlan,
  signature: unknown,
  secret: string | Uint8Array,
): PlanSignatureCheck {
  const key = secretBytes(secret)
  if (key === undefined)
    return invalid(
      `The verification secret is missing or shorter than ${MIN_SECRET_BYTES} bytes.`,
      'Configure the same secret the plan was signed with.',
    )
  if (typeof signature !== 'string' || !SIGNATURE_PATTERN.test(signature))
    return invalid(
      'The plan has no signature, or it is not a signature made by signPlan.',
      'Have the plan approved and signed again.',
    )
  let input: string
  try {
    input = planSignatureInput(plan)
  } catch (error) {
    return invalid(`The plan cannot be verified: ${errorMessage(error)}`, 'Sign a compiled plan.')
  }
  const expected = hmacSha256(key, input)
  const given = fromHex(signature.slice(SIGNATURE_PREFIX.length))
  if (!equalBytes(given, expected))
    return invalid(
      'The signature does not match this plan: a step was changed after it was approved, or it was signed with another secret.',
      'Have the plan as it is now approved and signed again.',
    )
  return { valid: true }
}
