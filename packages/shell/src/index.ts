/**
 * Static analysis of one Bash command line against a policy's `commands` section: the
 * tree-sitter Bash grammar cross-checked by a second tokenizer, the decoding of every word to
 * its literal value, the built-in models of the programs an agent runs, and the checks of the
 * paths and roles of their arguments.
 *
 * @packageDocumentation
 */
export { commandIssue } from './command/command-issue.js'
export { type CommandReads, commandReads } from './command/command-reads.js'
export type { CommandChecker, CommandCheckerOptions } from './command/create-command-checker.js'
export { trackedDeniedPaths } from './command/git-committed-paths.js'
export { createCommandChecker } from './command/load-command-checker.js'
export { looksLikePath } from './command/looks-like-path.js'
export {
  commandSource,
  namedByOwnCode,
  runsAsCode,
  type WorkspaceExecutor,
  workspaceExecutor,
} from './command/workspace-executors.js'
export type { CommandPolicy, ProgramRule } from './schema/command-policy.js'
export type { CommandCheckResult } from './types/command-check-result.js'
export type { PathScope } from './types/path-scope.js'
export type { IssueCode, PlanIssue } from './types/plan-issue.js'
