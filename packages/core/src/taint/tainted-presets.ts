import { SENSITIVE_FILES } from '../schema/sensitive-files.js'
import type { TaintedPolicyInput } from '../schema/tainted-schema.js'

export { SENSITIVE_FILES }

/**
 * The "rule of two" as a `trust.tainted` section: a run may not combine untrusted input, reading
 * `sensitive` paths and changing state or communicating (writes, commands, URLs). Once two are in
 * the run, calls adding the third are refused (or sent to a human with `onRefuse: 'ask'`).
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
