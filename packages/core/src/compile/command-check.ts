import type { CommandCheckResult, PlanIssue } from '@plan/shell/common'
import { createPolicyCommandCheck } from '../command/create-policy-command-check.js'
import { unreadableIssue } from '../issues/unreadable-issue.js'
import type { ResolvedPolicy } from '../types/resolved-policy.js'

/** Checks one shell command against a policy; never throws. */
export type CommandCheck = (command: unknown) => CommandCheckResult

/**
 * The policy's command check, loaded once (the Bash grammar), failing closed with a
 * `command_invalid` issue when a hostile value makes it throw; and the policy's warnings.
 */
export async function createCommandCheck(
  policy: ResolvedPolicy,
): Promise<{ readonly check: CommandCheck; readonly warnings: readonly PlanIssue[] }> {
  const policyCommandCheck = await createPolicyCommandCheck(policy)
  const check = (command: unknown): CommandCheckResult => {
    try {
      return policyCommandCheck.check(command)
    } catch (error) {
      const issue = unreadableIssue('command_invalid', 'command', error)
      return { allowed: false, issue, issues: [issue] }
    }
  }
  return { check, warnings: policyCommandCheck.warnings }
}
