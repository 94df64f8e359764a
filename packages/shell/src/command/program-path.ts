/**
 * The folders an absolute program path may name an allowed program in. A program given by path
 * is the allowed program of the same name only when it lies directly in one of these: they hold
 * what `PATH` resolves bare names to on the machines the gate runs on, and an agent cannot write
 * them. `/tmp/evil/node` or `./node_modules/.bin/node` is not `node`; `/usr/local/bin/node` is.
 * The check is by name, not by looking the program up: the result does not depend on the
 * checking process's own `PATH`.
 */
export const SYSTEM_PROGRAM_FOLDERS: readonly string[] = Object.freeze([
  '/usr/local/bin',
  '/usr/bin',
  '/bin',
  '/usr/local/sbin',
  '/usr/sbin',
  '/sbin',
  '/opt/homebrew/bin',
])

/**
 * The `commands.allow` entry a program word stands for: the word itself when it is a bare name,
 * the bare name when the word is a plain absolute path to an allowed program in a
 * {@link SYSTEM_PROGRAM_FOLDERS} folder, or undefined for any other path.
 */
export function policyWord(word: string, allow: ReadonlySet<string>): string | undefined {
  const slash = word.lastIndexOf('/')
  if (slash === -1) return word
  const folder = word.slice(0, slash)
  const name = word.slice(slash + 1)
  if (!SYSTEM_PROGRAM_FOLDERS.includes(folder) || !allow.has(name)) return undefined
  return name
}
