import { commandPolicySchema } from '../../schema/command-policy.js'
import type { PathScope } from '../../types/path-scope.js'
import { type CommandChecker, createCommandChecker } from '../create-command-checker.js'

/** The scope most rule tests check against: one root, its `.git` read-only, `.env` denied. */
export const REPO_SCOPE: PathScope = {
  roots: ['/srv/repo'],
  readOnly: ['/srv/repo/.git'],
  deny: ['/srv/repo/.env'],
}

/** A checker of a policy that allows the programs `allow`, in `scope`. */
export function checkerOf(
  allow: readonly string[],
  scope: PathScope = REPO_SCOPE,
): Promise<CommandChecker> {
  return createCommandChecker({ policy: commandPolicySchema.parse({ allow }), scope })
}

/** A command's verdict as a test compares it: `allow`, or the code of its first issue. */
export function verdictOf(
  checker: CommandChecker,
  command: string,
): { readonly command: string; readonly verdict: string } {
  const result = checker.check(command)
  return { command, verdict: result.allowed ? 'allow' : result.issue.code }
}
