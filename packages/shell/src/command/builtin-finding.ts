import type { IssueCode } from '../types/plan-issue.js'
import { bounded } from './command-hints.js'
import type { FlagStyle } from './uses-flag.js'

/**
 * A problem found by a built-in rule. `exec` findings (the program would run other code) are
 * lifted by `allowExec` on the program's rule; `write` findings (the program would write a file
 * the path check cannot see) are lifted by listing `flag` in the rule's `allowFlags`.
 */
export interface BuiltinFinding {
  readonly code: Extract<
    IssueCode,
    'command_inline_code' | 'command_wrapper' | 'command_flag_denied'
  >
  readonly kind: 'exec' | 'write'
  readonly message: string
  readonly hint: string
  readonly flag?: string
}

/** Flags of one program that run code (`exec`) or write files the path check cannot see. */
export interface FlagRule {
  readonly flags: readonly string[]
  readonly kind: 'exec' | 'write'
  readonly why: string
  /**
   * Long options of the program's own that are also the start of one of `flags`, so never an
   * abbreviation of it (npm's `--global` beside `--globalconfig`).
   */
  readonly ownOptions?: readonly string[]
}

/** The built-in model of one program's flags and subcommands. */
export interface ProgramSpec {
  readonly style?: FlagStyle
  readonly flags?: readonly FlagRule[]
  /** Subcommands (any word that is not a flag, before `--`) that run other programs. */
  readonly execSubcommands?: readonly string[]
  readonly custom?: (args: readonly string[], name: string) => BuiltinFinding[]
}

/** An `exec` finding: the program would run other code. */
export const exec = (
  message: string,
  hint: string,
  code: BuiltinFinding['code'] = 'command_inline_code',
): BuiltinFinding => ({
  code,
  kind: 'exec',
  message,
  hint,
})

/** An option before the subcommand that the checker cannot place: its value could be the subcommand. */
export function unknownGlobal(name: string, given: string): BuiltinFinding {
  const option = bounded(given)
  return {
    code: 'command_flag_denied',
    kind: 'exec',
    message: `${name} ${option} is an option before the subcommand that the checker does not know; its value could be read as the subcommand.`,
    hint: `Put options after the subcommand (${name} SUBCOMMAND ${option} …), or use a known global option.`,
  }
}

/**
 * The flag rule of options whose value is a file that lists the paths to act on
 * (`--files0-from`, `--pathspec-from-file`): the check cannot see those paths, so the list is
 * read as a config file.
 */
export function fileListFlags(flags: readonly string[]): FlagRule {
  return { flags, kind: 'exec', why: FILE_LIST_WHY }
}

/** Why a file that lists the paths to act on is refused (see {@link fileListFlags}). */
export const FILE_LIST_WHY =
  'acts on the paths a list file names, which the check cannot see (a config file)'

/**
 * A write outside the workspace that a package manager or toolchain makes on its own: a global
 * install (npm -g, cargo install, go install), a link in the global prefix, a setting in the
 * user's configuration. The path checks cannot see it and the sandbox does not let it happen.
 */
export function outsideWrite(
  command: string,
  flag: string,
  where: string,
  hint: string,
): BuiltinFinding {
  return {
    code: 'command_flag_denied',
    kind: 'write',
    flag,
    message: `${command} writes ${where}, outside the workspace.`,
    hint,
  }
}
