/**
 * How a program spells its options: `gnu` clusters short flags (`-xvf`) and accepts unique
 * abbreviations of long ones (`--upload-pa` for `--upload-pack`); `single` uses whole words
 * after one dash (`find -exec`, `gcc -wrapper`).
 */
export type FlagStyle = 'gnu' | 'single'

/**
 * True when the argument uses `flag`. Matching fails closed: `--flag=value` and every unique
 * abbreviation (three characters or more) match a long flag; a short flag matches when its
 * letter appears anywhere in a cluster (`-lc` uses `-c`, `-oProxyCommand=…` uses `-o`); a
 * `single`-style flag matches as a prefix (`-execdir` uses `-exec`).
 */
export function usesFlag(argument: string, flag: string, style: FlagStyle = 'gnu'): boolean {
  if (argument === flag) return true
  if (flag.startsWith('--')) {
    if (!argument.startsWith('--') || argument.length < 3) return false
    const equals = argument.indexOf('=')
    const name = equals === -1 ? argument : argument.slice(0, equals)
    return name === flag || (name.length >= 3 && flag.startsWith(name))
  }
  if (!flag.startsWith('-') || argument.startsWith('--') || !argument.startsWith('-')) return false
  if (style === 'single' || flag.length > 2) return argument.startsWith(flag)
  return argument.length > 1 && argument.includes(flag.slice(1), 1)
}

/** The first flag of `flags` that the argument uses, if any. */
export function findFlag(
  argument: string,
  flags: readonly string[],
  style: FlagStyle = 'gnu',
): string | undefined {
  for (const flag of flags) if (usesFlag(argument, flag, style)) return flag
  return undefined
}
