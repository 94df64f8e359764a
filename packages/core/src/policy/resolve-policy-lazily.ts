import { PolicyError, posix } from '@plan/shell/common'
import { unreadableIssue } from '../issues/unreadable-issue.js'
import type { PolicyInput } from '../schema/policy-schema.js'
import type { JsonValue } from '../types/json-value.js'
import type { ResolvedPolicy, ResolvePolicyOptions } from '../types/resolved-policy.js'
import { parsePolicyFast } from './parse-policy-fast.js'
import { hasPatterns, loadPatternEngine } from './policy-pattern.js'
import { readPolicyJson } from './read-policy-json.js'
import { isResolvedPolicy, resolveParsedPolicy } from './resolve-parsed-policy.js'

/** {@link resolvePolicy} loading zod (and its detailed issues) only if the fast read declines. */
export async function resolvePolicyLazily(
  input: PolicyInput | ResolvedPolicy | unknown,
  options: ResolvePolicyOptions = {},
): Promise<ResolvedPolicy> {
  let copied: JsonValue
  try {
    if (isResolvedPolicy(input)) return input
    copied = readPolicyJson(input)
  } catch (error) {
    throw new PolicyError([unreadableIssue('invalid_policy', 'policy', error)], { cause: error })
  }
  if (hasPatterns(copied)) await loadPatternEngine()
  const policy = parsePolicyFast(copied)
  // Without a baseDir: the current folder where the runtime has one, else `/`.
  if (policy !== undefined) return resolveParsedPolicy(policy, options.baseDir ?? posix.resolve())
  const { resolvePolicy } = await import('./resolve-policy.js')
  return resolvePolicy(copied, options)
}
