import { closesOnExec, openDescriptors } from './inherited-descriptors.js'
import { SandboxError } from './sandbox-error.js'

/** The name the closer runs under: its own errors, and bash's, start with `plan-sandbox: `. */
export const CLOSER_NAME = 'plan-sandbox'

/** The exit code of a closer that could not close every descriptor; nothing ran. */
export const CLOSER_FAILED = 125

/**
 * bash, given the first descriptor to close and a command: closes every descriptor from it up,
 * checks that none is left, and execs the command with an empty environment.
 */
export const CLOSE_DESCRIPTORS = [
  'keep=$1; shift',
  `[[ -d /proc/self/fd ]] || { echo "$0: /proc/self/fd cannot be read" >&2; exit ${CLOSER_FAILED}; }`,
  'for path in /proc/self/fd/*; do [[ $path =~ [0-9]+$ ]] && fd=$BASH_REMATCH || continue',
  '  (( fd < keep )) || exec {fd}>&-',
  'done',
  'for path in /proc/self/fd/*; do [[ $path =~ [0-9]+$ ]] && fd=$BASH_REMATCH || continue',
  `  if (( fd >= keep )) && [[ -L $path ]]; then echo "$0: descriptor $fd is still open" >&2; exit ${CLOSER_FAILED}; fi`,
  'done',
  'exec -c "$@"',
].join('\n')

// Reading this many descriptors' flags (6-7 µs each) costs about what starting through bash does.
const INSPECT_AT_MOST = 128

/**
 * `argv` as it must start so that it holds no descriptor numbered `keep` or more: unchanged when
 * this process holds none without close-on-exec (the usual case), else under bash, which closes
 * them first. Throws `sandbox_unavailable` when they must be closed and there is no bash.
 */
export function withoutInheritedDescriptors(
  argv: readonly [string, ...string[]],
  keep: number,
  bash: string | undefined,
): readonly [string, ...string[]] {
  const open = openDescriptors(keep)
  const inspect = open !== undefined && (bash === undefined || open.length <= INSPECT_AT_MOST)
  const inherited = inspect ? open.filter((fd) => !closesOnExec(fd)) : undefined
  if (inherited?.length === 0) return argv
  if (bash !== undefined)
    return [
      bash,
      '--norc',
      '--noprofile',
      '-c',
      CLOSE_DESCRIPTORS,
      CLOSER_NAME,
      String(keep),
      ...argv,
    ]
  throw new SandboxError({
    code: 'sandbox_unavailable',
    message:
      inherited === undefined
        ? 'The descriptors this process holds cannot be listed (/proc/self/fd), so none can be kept from a sandboxed command, and bash, which would close them, was not found.'
        : `This process holds descriptors it inherited without close-on-exec (${inherited.join(', ')}), which every sandboxed command would inherit too, and bash, which closes them before the sandbox starts, was not found.`,
    path: [],
    hint: 'Install bash, or start the agent without open descriptors beyond stdin, stdout and stderr (close them, or mark them close-on-exec, in the program that starts it).',
  })
}
