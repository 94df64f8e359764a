import { ARCHIVES_FAMILY } from './archives.js'
import { CARGO_FAMILY } from './cargo.js'
import { COMPILERS_FAMILY } from './compilers.js'
import { COREUTILS_FAMILY } from './coreutils.js'
import { CURL_FAMILY } from './curl.js'
import { EXEC_FAMILY } from './exec.js'
import { FIND_FAMILY } from './find.js'
import { GIT_FAMILY } from './git.js'
import { GO_FAMILY } from './go.js'
import { MAKE_FAMILY } from './make.js'
import { NODE_FAMILY } from './node.js'
import type { ProgramFamily } from './program-family.js'
import { PYTHON_FAMILY } from './python.js'
import { REMOTE_FAMILY } from './remote.js'
import { TEXT_TOOLS_FAMILY } from './text-tools.js'

/** Every family of programs the checker models, one file each. */
export const PROGRAM_FAMILIES: readonly ProgramFamily[] = [
  GIT_FAMILY,
  NODE_FAMILY,
  PYTHON_FAMILY,
  CARGO_FAMILY,
  GO_FAMILY,
  MAKE_FAMILY,
  CURL_FAMILY,
  ARCHIVES_FAMILY,
  COREUTILS_FAMILY,
  TEXT_TOOLS_FAMILY,
  FIND_FAMILY,
  REMOTE_FAMILY,
  COMPILERS_FAMILY,
  EXEC_FAMILY,
]

/** One of the tables of every family, merged by program name (a name is in one family only). */
export function familyTable<Entry>(
  table: (family: ProgramFamily) => Readonly<Record<string, Entry>> | undefined,
): Record<string, Entry> {
  const merged: Record<string, Entry> = {}
  for (const family of PROGRAM_FAMILIES) Object.assign(merged, table(family))
  return merged
}

const ALIASES = familyTable((family) => family.aliases)

/**
 * The entry of a program in a table keyed by program name: its own, else that of the program
 * its alias names (`gmake` takes make's, `py.test` pytest's), so that no table lets an alias
 * skip a rule.
 */
export function programEntry<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  if (Object.hasOwn(table, name)) return table[name]
  const program = aliasedProgram(name)
  return Object.hasOwn(table, program) ? table[program] : undefined
}

/** The program an alias names (`gmake`: `make`), or the name itself. */
export function aliasedProgram(name: string): string {
  return (Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined) ?? name
}
