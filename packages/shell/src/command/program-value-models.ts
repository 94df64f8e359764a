import type { BuiltinFinding } from './builtin-finding.js'
import { VERSIONED_COMPILER } from './programs/compilers.js'
import { familyTable, programEntry } from './programs/program-families.js'
import { codeRoleFindings, SHORT_VALUE_LETTERS, splitShortClusters } from './value-roles.js'

const MODELS = familyTable((family) => family.valueOptions)
const CHECKS = familyTable((family) => family.valueChecks)

// A check of the name or its alias, or of the program a versioned compiler name carries (gcc-12).
function valueCheck(name: string): (typeof CHECKS)[string] | undefined {
  const own = programEntry(CHECKS, name)
  if (own !== undefined) return own
  const versioned = name.includes('-') ? VERSIONED_COMPILER.exec(name)?.[1] : undefined
  return versioned === undefined ? undefined : CHECKS[versioned]
}

/**
 * The value-role findings of one program: option values that would run a program or read a
 * config file (see `value-roles.ts`), then the family's checks of values no option table can
 * describe (`go env -w` settings that persist such flags, compiler response files `gcc @file`).
 */
export function programValueFindings(name: string, args: readonly string[]): BuiltinFinding[] {
  const options = programEntry(MODELS, name)
  const check = valueCheck(name)
  if (options === undefined && check === undefined) return []
  const letters = programEntry(SHORT_VALUE_LETTERS, name)
  const words = letters === undefined ? args : splitShortClusters(args, letters)
  const findings = codeRoleFindings(name, words, options ?? [])
  if (check !== undefined) findings.push(...check(args, name))
  return findings
}
