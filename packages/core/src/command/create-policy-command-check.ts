import { type CommandChecker, commandIssue, createCommandChecker } from '@plan/shell'
import type { CommandCheckResult } from '@plan/shell/common'
import type { Policy } from '../schema/policy-schema.js'
import type { ResolvedPolicy } from '../types/resolved-policy.js'
import { toolFacts } from '../util/tool-facts.js'

/**
 * True when a policy can allow a command at all: a tool declares a `command` argument (at any
 * depth) or `commands.allow` lists a program.
 */
export function policyUsesCommands(policy: Policy): boolean {
  if (policy.commands.allow.length > 0) return true
  return Object.values(policy.tools).some((tool) => toolFacts(tool).commands)
}

const denied: CommandCheckResult = (() => {
  const issue = commandIssue(
    'command_not_allowed',
    'This policy allows no commands: no tool takes a command and commands.allow is empty.',
    'The policy allows no programs; do not run commands.',
  )
  return Object.freeze({ allowed: false, issue, issues: Object.freeze([issue]) })
})()

/**
 * The compiler's command check: the Bash grammar loads (once per process) only if the policy can
 * allow a command; else each command is denied unparsed, as the grammar would (no program allowed).
 */
export async function createPolicyCommandCheck(policy: ResolvedPolicy): Promise<CommandChecker> {
  if (!policyUsesCommands(policy.policy)) return { check: () => denied, warnings: [] }
  const checker = await createCommandChecker({
    policy: policy.policy.commands,
    scope: policy.scope,
  })
  return { check: (command) => checker.check(command), warnings: checker.warnings }
}
