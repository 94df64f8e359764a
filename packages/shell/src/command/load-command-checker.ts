import type { CommandChecker, CommandCheckerOptions } from './create-command-checker.js'

/**
 * Creates a command checker (see `create-command-checker.ts`), loading the checker's code on first
 * use, so that importing `@plan/core` stays cheap for policies without commands.
 *
 * @example
 * ```ts
 * const checker = await createCommandChecker({
 *   policy: { allow: ['git', 'npm'], maxLength: 8192 },
 *   scope: { roots: ['/srv/repo'], readOnly: [], deny: [] },
 * })
 * checker.check('git commit -m "fix: a | b"') // { allowed: true, argv: ['git', 'commit', '-m', 'fix: a | b'] }
 * ```
 */
export async function createCommandChecker(
  options: CommandCheckerOptions,
): Promise<CommandChecker> {
  const { createCommandChecker: create } = await import('./create-command-checker.js')
  return create(options)
}
