import { type BuiltinFinding, exec, type ProgramSpec, unknownGlobal } from './builtin-finding.js'
import { checkGit } from './check-git-rules.js'
import { findSubcommand, hasGlobalOptions } from './global-options.js'
import { programValueFindings } from './program-value-models.js'
import { aliasedProgram, familyTable } from './programs/program-families.js'
import { findFlag } from './uses-flag.js'

export type { BuiltinFinding } from './builtin-finding.js'

// The built-in rules of every family. git's check reads its tables from programs/git.ts,
// which cannot reference the check back without an import cycle, so it joins here.
const PROGRAMS: Record<string, ProgramSpec> = familyTable((family) => family.builtins)
PROGRAMS.git = { ...PROGRAMS.git, custom: checkGit }

const ALIASES: Readonly<Record<string, string>> = familyTable((family) => family.aliases)

/**
 * The built-in rules for programs that run other programs through their own flags or
 * subcommands (`find -exec`, `git -c`, `rg --pre`, `sed e`, `awk system()`, `npm exec` …).
 * They apply even when the policy allows the program.
 */
export function checkBuiltinRules(name: string, args: readonly string[]): BuiltinFinding[] {
  const key = aliasedProgram(name)
  const spec = Object.hasOwn(PROGRAMS, key) ? PROGRAMS[key] : undefined
  const findings: BuiltinFinding[] = programValueFindings(name, args)
  if (spec === undefined) return findings
  if (key !== 'git' && hasGlobalOptions(key)) {
    const position = findSubcommand(key, args)
    if ('unknownOption' in position) findings.push(unknownGlobal(name, position.unknownOption))
  }
  for (const flagRule of spec.flags ?? []) {
    for (const argument of args) {
      const flag = findFlag(argument, flagRule.flags, spec.style)
      if (flag === undefined || flagRule.ownOptions?.includes(argument.split('=')[0] ?? ''))
        continue
      findings.push({
        code: flagRule.kind === 'exec' ? 'command_inline_code' : 'command_flag_denied',
        kind: flagRule.kind,
        flag,
        message: `${name} ${flag} ${flagRule.why}.`,
        hint: `Run ${name} without ${flag}.`,
      })
    }
  }
  if (spec.execSubcommands !== undefined) {
    const end = args.indexOf('--')
    const position = hasGlobalOptions(key) ? findSubcommand(key, args) : undefined
    const words =
      position !== undefined && 'index' in position
        ? [position.subcommand ?? '']
        : end === -1
          ? args
          : args.slice(0, end)
    for (const argument of words) {
      if (argument.startsWith('-') || !spec.execSubcommands.includes(argument)) continue
      findings.push(
        exec(
          `${name} ${argument} runs another program or changes which program runs.`,
          `Run the program directly in its own step instead of through ${name} ${argument}.`,
          'command_wrapper',
        ),
      )
    }
  }
  if (spec.custom !== undefined) findings.push(...spec.custom(args, key === 'ssh' ? name : key))
  return findings
}

/** Every program (and alias) that has built-in rules. */
export function programsWithBuiltinRules(): readonly string[] {
  const aliases = Object.keys(ALIASES).filter((alias) =>
    Object.hasOwn(PROGRAMS, ALIASES[alias] ?? ''),
  )
  return [...Object.keys(PROGRAMS), ...aliases]
}
