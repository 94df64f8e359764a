import type { ProgramSpec } from '../builtin-finding.js'
import type { ValueOption } from '../value-roles.js'

/**
 * What an argument position does with its value: reads a path, writes one, is a command or
 * script, a URL, or plain text. `unknown` is a position no table describes: a protected path
 * named there is refused as if it were written.
 */
export type ArgumentRole = 'read' | 'write' | 'command' | 'url' | 'inert' | 'unknown'

/**
 * How a program's operands are used: one role for all, the last or second one written, or the
 * first one read and the others unknown (an interpreter's script and its arguments).
 */
export type OperandRoles = ArgumentRole | 'last-write' | 'second-write' | 'first-read'

/** Options that take a value, by spelling (`-o`, `--output`), with the role of that value. */
export type OptionValueRoles = Readonly<Record<string, ArgumentRole>>

/** The argument roles of one program. */
export interface ProgramRoles {
  /** Role of the operands, or a function of the whole argument list (`gzip -c` reads). */
  readonly operands: OperandRoles | ((args: readonly string[]) => OperandRoles)
  /**
   * Options that take a value, with the role of that value; or a function of the argument
   * list, for programs whose options differ by subcommand (git).
   */
  readonly values?: OptionValueRoles | ((args: readonly string[]) => OptionValueRoles)
  /** `key=value` operands (`dd if=… of=…`), with the role of the value. */
  readonly keys?: OptionValueRoles
  /** The first operand is a pattern, not a path, unless `-e`/`-f` gives it (grep, jq). */
  readonly patternFirst?: boolean
  /** The first word may be an option cluster without a dash (`tar cf out.tar src`). */
  readonly bareOptions?: boolean
}

/** How a program reads whole trees (`grep -r`, `cp -r`, `tar -c`): when, and which operands. */
export interface TreeReads {
  /** True when this argument list reads its sources recursively. */
  readonly recursive: (args: readonly string[]) => boolean
  /** The tree operands, from all operands (the first may be a pattern, the last a target). */
  readonly sources: (operands: readonly string[], args: readonly string[]) => readonly string[]
  /** Whether it skips hidden files unless told otherwise (ripgrep). */
  readonly skipsHidden?: (args: readonly string[]) => boolean
}

/**
 * The argument roles of a program whose operands and options depend on its subcommand (git):
 * found after the program's global options (see {@link GlobalOptions}).
 */
export interface SubcommandRoles {
  /** The subcommands whose operands take each role; the first role that lists one wins. */
  readonly operandsBySubcommand: Readonly<Partial<Record<OperandRoles, readonly string[]>>>
  /** The role of the operands of every other subcommand. */
  readonly otherOperands: OperandRoles
  /** The value-taking options every subcommand accepts (the global ones). */
  readonly globalValues: OptionValueRoles
  /** Each subcommand's own value-taking options, on top of the global ones. */
  readonly valuesBySubcommand: Readonly<Record<string, OptionValueRoles>>
}

/** The options a program accepts before its subcommand. */
export interface GlobalOptions {
  /** Options whose value may be the next word (`git -C dir`, `npm --prefix dir`). */
  readonly withValue: readonly string[]
  /** Options without a value. */
  readonly flags: readonly string[]
  /** Words that start with this character are options too (`cargo +nightly`). */
  readonly extraPrefix?: string
}

/**
 * Everything the checker knows of one family of programs (git; node and its package
 * managers; python and pytest; …), by program name. One file per family holds one of these, so
 * that a reader finds all the tables of a program in one place.
 */
export interface ProgramFamily {
  /**
   * Other names of the family's programs (`gsed` for sed, `pigz` for gzip), which take every
   * table entry of the program that they have none of their own in (see `programEntry`).
   */
  readonly aliases?: Readonly<Record<string, string>>
  /** The options before the subcommand, of the programs that have subcommands. */
  readonly globalOptions?: Readonly<Record<string, GlobalOptions>>
  /** What each argument position does with its value (paths read, written, commands, …). */
  readonly roles?: Readonly<Record<string, ProgramRoles | SubcommandRoles>>
  /** The options whose values can run or load code, with the role of a given value. */
  readonly valueOptions?: Readonly<Record<string, readonly ValueOption[]>>
  /**
   * How programs read whole trees: a command that reads a tree holding a denied path is
   * refused, though the operand itself is allowed.
   */
  readonly treeReads?: Readonly<Record<string, TreeReads>>
  /**
   * Checks of option values that `valueOptions` cannot describe (`go env -w`, `cargo -Z`,
   * `gcc @file`), by program name; their findings follow the value options'.
   */
  readonly valueChecks?: Readonly<Record<string, NonNullable<ProgramSpec['custom']>>>
  /**
   * Built-in rules: flags and subcommands that run other code or write files the path check
   * cannot see (`find -exec`, `npm exec`); they apply even when the policy allows the program.
   */
  readonly builtins?: Readonly<Record<string, ProgramSpec>>
}
