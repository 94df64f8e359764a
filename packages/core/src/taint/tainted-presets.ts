import { SENSITIVE_FILES } from '../schema/sensitive-files.js'
import type { TaintedPolicyInput } from '../schema/tainted-schema.js'

export { SENSITIVE_FILES }

/**
 * The "rule of two" as a `trust.tainted` section: a run may not combine untrusted input,
 * access to sensitive data (reading `sensitive` paths) and the ability to change state or
 * communicate (writes, commands, URLs). Once two of them are in the run, calls that would add
 * the third are refused (or sent to a human with `onRefuse: 'ask'`).
 *
 * @example
 * ```ts
 * const policy = { ...base, trust: { tainted: ruleOfTwo() } }
 * ```
 */
export function ruleOfTwo(
  options: { sensitive?: readonly string[]; onRefuse?: 'deny' | 'ask' } = {},
): TaintedPolicyInput {
  return {
    mode: 'rule-of-two',
    sensitive: [...(options.sensitive ?? SENSITIVE_FILES)],
    onRefuse: options.onRefuse ?? 'deny',
  }
}
