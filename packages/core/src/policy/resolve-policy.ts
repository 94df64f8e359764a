import { loadNodeBuiltin, type PlanIssue, PolicyError, posix } from '@plan/shell/common'
import { RE2JS } from 're2js'
import type { z } from 'zod'
import { unreadableIssue } from '../issues/unreadable-issue.js'
import { type PolicyInput, policySchema } from '../schema/policy-schema.js'
import type { ResolvedPolicy, ResolvePolicyOptions } from '../types/resolved-policy.js'
import { errorMessage } from '../util/error-message.js'
import { runIssue } from '../util/run-issue.js'
import { usePatternEngine } from './policy-pattern.js'
import { readPolicyJson } from './read-policy-json.js'
import { isResolvedPolicy, resolveParsedPolicy } from './resolve-parsed-policy.js'

function zodIssues(error: z.ZodError): PlanIssue[] {
  return error.issues.map((issue) => ({
    code: 'invalid_policy',
    message: issue.message,
    path: issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment)),
    hint: 'Fix the policy; see the policy JSON Schema (`plan schema policy`).',
  }))
}

/** Validates a policy and resolves its roots; throws {@link PolicyError} listing every problem. */
export function resolvePolicy(
  input: PolicyInput | ResolvedPolicy | unknown,
  options: ResolvePolicyOptions = {},
): ResolvedPolicy {
  let parsed: ReturnType<typeof policySchema.safeParse>
  try {
    if (isResolvedPolicy(input)) return input
    parsed = policySchema.safeParse(readPolicyJson(input))
  } catch (error) {
    throw new PolicyError([unreadableIssue('invalid_policy', 'policy', error)], { cause: error })
  }
  if (!parsed.success) throw new PolicyError(zodIssues(parsed.error))
  usePatternEngine(RE2JS)
  return resolveParsedPolicy(parsed.data, options.baseDir ?? posix.resolve())
}

/** The refusal of a policy file that could not be read or parsed: `what` and what was thrown. */
function unusableFile(what: string, thrown: unknown): PolicyError {
  const issue = runIssue('invalid_policy', `${what}: ${errorMessage(thrown)}`)
  return new PolicyError([issue], { cause: thrown })
}

/**
 * Reads a policy JSON file; relative workspace roots resolve against the file's folder.
 * Throws {@link PolicyError} when the file cannot be read, is not JSON, or is not a valid policy.
 */
export async function loadPolicy(file: string): Promise<ResolvedPolicy> {
  let text: string
  try {
    const fs = await loadNodeBuiltin<{ readFile(path: string, encoding: 'utf8'): Promise<string> }>(
      'node:fs/promises',
    )
    if (fs === undefined) throw new Error('this runtime has no file system')
    text = await fs.readFile(file, 'utf8')
  } catch (error) {
    throw unusableFile(`Cannot read the policy file ${file}`, error)
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    throw unusableFile(`The policy file ${file} is not valid JSON`, error)
  }
  return resolvePolicy(data, { baseDir: posix.dirname(posix.resolve(file)) })
}
