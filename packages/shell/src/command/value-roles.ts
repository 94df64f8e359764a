import { stringAt } from '../util/item-at.js'
import { type BuiltinFinding, exec } from './builtin-finding.js'
import { quoted } from './command-hints.js'

/**
 * What a program does with one option's value. Every option value has one:
 * - `path-read`, `path-write`: a file the path checks judge against the workspace;
 * - `program`: a program, library, module or plugin it runs or loads (`-vettool=./x`);
 * - `config-file`: a file of settings it reads, which can name programs in turn
 *   (`wget --config=x`, `cargo --config=x.toml`, `gcc @args`);
 * - `url`, `pattern`, `data`: text that runs nothing.
 *
 * A value whose role runs or loads code, or names a config file, is refused unless a
 * per-program rule allows it (`allowExec`); an option the model knows but cannot place, or a
 * setting it has no role for, takes the most dangerous role it could have: `program`.
 */
export type ValueRole =
  | 'path-read'
  | 'path-write'
  | 'program'
  | 'config-file'
  | 'url'
  | 'pattern'
  | 'data'

/** The roles a value may not have unless a per-program rule allows it. */
export const CODE_ROLES: ReadonlySet<ValueRole> = new Set(['program', 'config-file'])

/** One option of a program model: its spellings and the role of a given value. */
export interface ValueOption {
  readonly spellings: readonly string[]
  /** The value's role; a function when it depends on the value (`--config k=v` or a file). */
  readonly role: ValueRole | ((value: string) => ValueRole)
  /** Why the value has a refused role, for the issue. */
  readonly why: string
  /**
   * The shortest abbreviations of the long spellings that the program accepts (`--conf` for
   * wget's `--config`): every longer prefix of a spelling is the same option.
   */
  readonly abbreviations?: readonly string[]
}

/**
 * The values of the model's options in an argument list (`--opt v`, `--opt=v`, `-ov`,
 * `-o=v`), with their roles; `--` ends the options.
 */
export function optionValues(
  args: readonly string[],
  options: readonly ValueOption[],
): { readonly option: ValueOption; readonly spelling: string; readonly value: string }[] {
  const found: { option: ValueOption; spelling: string; value: string }[] = []
  for (let index = 0; index < args.length; index += 1) {
    const argument = stringAt(args, index)
    if (argument === '--') break
    for (const option of options) {
      const spelling =
        spellingUsed(argument, option.spellings) ?? abbreviationUsed(argument, option)
      if (spelling === undefined) continue
      let value: string
      if (argument === spelling) {
        value = args[index + 1] ?? ''
        index += 1
      } else value = argument.slice(spelling.length).replace(/^=/, '')
      found.push({ option, spelling, value })
      break
    }
  }
  return found
}

// The spelling an argument uses: the option itself, `--opt=v`/`-o=v`, or a short option with
// its value attached (`-ov`).
function spellingUsed(argument: string, spellings: readonly string[]): string | undefined {
  for (const candidate of spellings) {
    if (!argument.startsWith(candidate)) continue
    if (
      argument.length === candidate.length ||
      argument.startsWith('=', candidate.length) ||
      (candidate.length === 2 && !candidate.startsWith('--'))
    )
      return candidate
  }
  return undefined
}

// An abbreviation of a long spelling that the program reads as the option (`--conf=x`).
function abbreviationUsed(argument: string, option: ValueOption): string | undefined {
  const equals = argument.indexOf('=')
  const name = equals === -1 ? argument : argument.slice(0, equals)
  const used = option.abbreviations?.some(
    (shortest) =>
      name.startsWith(shortest) &&
      option.spellings.some(
        (spelling) => spelling.startsWith(shortest) && spelling.startsWith(name),
      ),
  )
  return used === true ? name : undefined
}

/**
 * The short options that take a value, of programs that cluster short flags (`-qc x.ini` is
 * `-q -c x.ini` to pytest's argparse, `-sf other.mk` is `-s -f other.mk` to make's getopt).
 */
export const SHORT_VALUE_LETTERS: Readonly<Record<string, string>> = {
  pytest: 'cknmopWr',
  make: 'fCEIjloOW',
}

/**
 * The argument list with clusters of short flags split (`-qc x` → `-q`, `-c`, `x`;
 * `-sfother.mk` → `-s`, `-fother.mk`): a cluster ends at its first letter that takes a value,
 * and the rest of the word or the next word is that value. `--` ends the options.
 */
export function splitShortClusters(
  args: readonly string[],
  valueLetters: string,
): readonly string[] {
  const split: string[] = []
  for (const [index, argument] of args.entries()) {
    if (argument === '--') {
      split.push(...args.slice(index))
      break
    }
    if (!/^-[^-]./.test(argument) || valueLetters.includes(argument.charAt(1))) {
      split.push(argument)
      continue
    }
    for (let position = 1; position < argument.length; position += 1) {
      const letter = argument.charAt(position)
      if (valueLetters.includes(letter)) {
        split.push(`-${argument.slice(position)}`)
        break
      }
      split.push(`-${letter}`)
    }
  }
  return split
}

/**
 * The findings of a program model: one per option value whose role runs or loads code or
 * names a config file.
 */
export function codeRoleFindings(
  name: string,
  args: readonly string[],
  options: readonly ValueOption[],
): BuiltinFinding[] {
  return optionValues(args, options).flatMap(({ option, spelling, value }) => {
    const role = typeof option.role === 'function' ? option.role(value) : option.role
    if (!CODE_ROLES.has(role)) return []
    return [
      exec(
        `${name} ${spelling} ${quoted(value)}: ${option.why} (a ${role === 'program' ? 'program to run' : 'config file'}).`,
        `Run ${name} without ${spelling}, or with only plain settings.`,
      ),
    ]
  })
}

/** `program` unless every word of the value is in the allowed set (after `pattern=`). */
export function wordsRole(allowed: RegExp): (value: string) => ValueRole {
  return (value) => {
    const words = value
      .replace(/^[^-\s'"=]*=/, '')
      .split(/[\s'"]+/)
      .filter((word) => word.length > 0)
    for (let index = 0; index < words.length; index += 1) {
      const word = stringAt(words, index)
      if (word === '-X') {
        index += 1
        continue
      }
      if (!allowed.test(word)) return 'program'
    }
    return 'data'
  }
}
