/**
 * A matcher of argument lists that hold one of the long flags, or an abbreviation of one that
 * getopt accepts (`--recur` for `--recursive`), or a short-option cluster holding one of the
 * letters (`-rn` for `r`).
 */
export function flagMatcher(
  long: readonly string[],
  letters: string,
): (args: readonly string[]) => boolean {
  const short = letters.length === 0 ? undefined : new RegExp(`^-[A-Za-z]*[${letters}]`)
  return (args) =>
    args.some(
      (argument) =>
        (short !== undefined && !argument.startsWith('--') && short.test(argument)) ||
        long.some((flag) => abbreviates(argument, flag)),
    )
}

// `--name` or `--name=value` where the name is the flag or a prefix of it past `--` and a letter.
function abbreviates(argument: string, flag: string): boolean {
  const equals = argument.indexOf('=')
  const name = equals === -1 ? argument : argument.slice(0, equals)
  return name === flag || (name.length > 3 && flag.startsWith(name))
}

const patternGiven = (args: readonly string[]) =>
  args.some((argument) => /^-[A-Za-z]*[ef]|^--(regexp|file)/.test(argument))

/** The operands after a search's pattern (none given: `.`), unless `-e`/`-f` gives the pattern. */
export const afterPattern = (operands: readonly string[], args: readonly string[]) => {
  const rest = patternGiven(args) ? operands : operands.slice(1)
  return rest.length === 0 ? ['.'] : rest
}

/** The sources of a copy: every operand but the target, unless `-t` names the target. */
export const allButLast = (operands: readonly string[], args: readonly string[]) =>
  args.some((argument) => /^-[A-Za-z]*t|^--target-directory/.test(argument))
    ? operands
    : operands.slice(0, -1)
