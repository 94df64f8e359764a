import { hmacSha256, toHex } from '@plan/json'
import { createIssue, PlanError } from '@plan/shell/common'
import type { CompiledPlan } from '../types/compiled-plan.js'
import { errorMessage } from '../util/error-message.js'
import {
  MIN_SECRET_BYTES,
  planSignatureInput,
  SIGNATURE_PREFIX,
  secretBytes,
} from './plan-signature-input.js'

/**
 * Signs an approved plan: an HMAC-SHA-256, keyed with `secret`, over the plan's hash and a digest
 * of its steps. Give the signature to whoever runs the plan; a guard with the same secret refuses
 * the plan without a valid signature, so an approval binds to exactly the steps approved. Throws
 * `PlanError` (`signature_invalid`) for a secret under 32 bytes.
 *
 * @example
 * ```ts
 * const plan = compiler.compile(proposal)
 * const signature = signPlan(plan, process.env.PLAN_SECRET ?? '') // after a human approves
 * const guard = createPlanGuard(plan, { compiler, signature, secret: process.env.PLAN_SECRET })
 * ```
 */
export function signPlan(plan: CompiledPlan, secret: string | Uint8Array): string {
  const key = secretBytes(secret)
  if (key === undefined) {
    const message = `A signing secret must be a string or bytes of at least ${MIN_SECRET_BYTES} bytes.`
    const hint = 'Use a random secret of 32 bytes or more, e.g. randomBytes(32).'
    throw new PlanError(message, { issues: [createIssue('signature_invalid', message, [], hint)] })
  }
  let input: string
  try {
    input = planSignatureInput(plan)
  } catch (error) {
    const message = `Cannot sign: ${errorMessage(error)}`
    throw new PlanError(message, { code: 'signature_invalid', cause: error })
  }
  return SIGNATURE_PREFIX + toHex(hmacSha256(key, input))
}
