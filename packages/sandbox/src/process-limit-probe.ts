import { spawnSync } from 'node:child_process'
import { findProgram } from './find-program.js'

const known = new Map<string, boolean>()

// coreutils `timeout` exits with 125 when it cannot fork the program it runs.
const FORK_FAILED = 125

/**
 * Whether the kernel enforces `RLIMIT_NPROC` on this process's user, found once per `prlimit`
 * path by forking under a limit of one process. It does not for uid 0 of the host (which
 * bubblewrap maps the sandbox's user to when run as root) or a process with CAP_SYS_RESOURCE
 * or CAP_SYS_ADMIN there: the fork then succeeds. A probe that cannot run says no.
 */
export function processLimitEnforced(prlimit: string, searchPath: string): boolean {
  const cached = known.get(prlimit)
  if (cached !== undefined) return cached
  const timeout = findProgram('timeout', searchPath)
  const probe =
    timeout === undefined
      ? undefined
      : spawnSync(prlimit, ['--nproc=1:1', timeout, '10', prlimit, '--version'], {
          env: {},
          stdio: 'ignore',
          timeout: 20_000,
        })
  const enforced = probe?.status === FORK_FAILED
  known.set(prlimit, enforced)
  return enforced
}
