import type { PolicyInput } from '@plan/core'
import { referenceToolPolicy } from '@plan/tools'

/**
 * The demo's policy: the reference tools plus a logging codemod, inside the workspace only;
 * `npm` may run the project's tests; the same call may repeat at most three times.
 */
export function demoPolicy(root: string): PolicyInput {
  return {
    version: 1,
    workspace: { roots: [root], readOnly: ['.git', 'package.json'], deny: ['.env'] },
    tools: {
      ...referenceToolPolicy(),
      rewrite_logging: {
        description: 'Replace console.log calls with log.info in one file.',
        args: { file: { type: 'path', access: 'write' } },
      },
    },
    commands: { allow: ['npm', 'git', 'ls'], rules: { npm: { subcommands: ['test'] } } },
    budgets: { maxSteps: 20, maxCalls: 30, maxIdenticalCalls: 3, maxReplans: 2 },
  }
}
