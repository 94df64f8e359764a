import { EXEC_RUNNER_SUBCOMMANDS, RUNNER_QUIET, SAME_PROGRAM_RUNNERS } from './programs/node.js'

/**
 * The program an npx-style runner is asked to run, with its arguments (`npx tsc --noEmit`,
 * `pnpm exec vitest run`, `npm exec -- eslint src`), when that program is named by a bare name
 * the policy allows itself: the command is then checked as that program run directly. Undefined
 * when the runner names another program, a version or package spec, or runner options that
 * pick other code (`--package`, `-c`).
 */
export function runnerTarget(
  name: string,
  args: readonly string[],
  allow: ReadonlySet<string>,
): readonly string[] | undefined {
  let index: number
  if (SAME_PROGRAM_RUNNERS.has(name)) index = 0
  else if (EXEC_RUNNER_SUBCOMMANDS.get(name)?.has(args[0] ?? '') === true) index = 1
  else return undefined
  while (RUNNER_QUIET.has(args[index] ?? '')) index += 1
  if (args[index] === '--') index += 1
  const target = args[index]
  if (target === undefined || !allow.has(target) || !/^[a-z0-9][a-z0-9._-]*$/i.test(target))
    return undefined
  return args.slice(index)
}
