import { EXEC_RUNNER_SUBCOMMANDS, RUNNER_QUIET, SAME_PROGRAM_RUNNERS } from './programs/node.js'

/**
 * The program an npx-style runner is asked to run, with its arguments (`npx tsc --noEmit`,
 * `pnpm exec vitest run`, `npm exec -- eslint src`), when that program is named by a bare name
 * the policy allows itself: the command is then checked as that program run directly. A version
 * or a dist-tag of that package (`npx create-vite@latest`, `npx tsc@5.4`) names the same package
 * the runner would fetch for the bare name; any other spec (`name@npm:other`, `name@file:…`,
 * `name@github:…`, a URL, a scope) is another package. Undefined when the runner names another
 * program or package, or runner options that pick other code (`--package`, `-c`).
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
  const target = packageOfSpec(args[index] ?? '')
  if (target === undefined || target.startsWith('@') || !allow.has(target)) return undefined
  return [target, ...args.slice(index + 1)]
}

// A registry package name (scoped or not), then a version, a one-version range or a dist-tag.
const REGISTRY_SPEC =
  /^((?:@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*)(?:@[~^]?[a-z0-9][a-z0-9._+-]*)?$/i

/**
 * The registry package a runner's package spec names (`prettier@3.3.0` and `prettier@latest`
 * name `prettier`, `@biomejs/biome@1` names `@biomejs/biome`), or undefined for a spec that
 * names other code: an alias (`prettier@npm:cowsay`), a file, folder, git or URL spec, a range
 * with operators.
 */
export function packageOfSpec(spec: string): string | undefined {
  return REGISTRY_SPEC.exec(spec)?.[1]
}
