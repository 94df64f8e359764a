import { findSubcommand } from './global-options.js'
import { familyTable } from './programs/program-families.js'
import type {
  ArgumentRole,
  OperandRoles,
  ProgramRoles,
  SubcommandRoles,
} from './programs/program-family.js'

export type { ArgumentRole, OperandRoles, ProgramRoles } from './programs/program-family.js'

const subcommandOf = (name: string, args: readonly string[]): string => {
  const position = findSubcommand(name, args)
  return 'subcommand' in position ? (position.subcommand ?? '') : ''
}

/** The roles of a program with subcommands, as functions of its argument list. */
function subcommandProgramRoles(name: string, roles: SubcommandRoles): ProgramRoles {
  const operands = new Map<string, OperandRoles>()
  for (const [role, subcommands] of Object.entries(roles.operandsBySubcommand)) {
    for (const subcommand of subcommands ?? []) {
      if (!operands.has(subcommand)) operands.set(subcommand, role as OperandRoles)
    }
  }
  const globalValues = Object.freeze({ ...roles.globalValues })
  // The global options' table merged with each subcommand's, once.
  const values = new Map(
    Object.entries(roles.valuesBySubcommand).map(([subcommand, specific]) => [
      subcommand,
      Object.freeze({ ...globalValues, ...specific }),
    ]),
  )
  return {
    operands: (args) => operands.get(subcommandOf(name, args)) ?? roles.otherOperands,
    values: (args) => values.get(subcommandOf(name, args)) ?? globalValues,
  }
}

const TABLE: Record<string, ProgramRoles> = Object.fromEntries(
  Object.entries(familyTable((family) => family.roles)).map(([name, roles]) => [
    name,
    'operandsBySubcommand' in roles ? subcommandProgramRoles(name, roles) : roles,
  ]),
)

const WITH_SUBCOMMANDS: ReadonlySet<string> = new Set(
  Object.entries(familyTable((family) => family.roles))
    .filter(([, roles]) => 'operandsBySubcommand' in roles)
    .map(([name]) => name),
)

/** True when a program's roles depend on its subcommand (git): that word names no file. */
export function hasSubcommandRoles(name: string): boolean {
  return WITH_SUBCOMMANDS.has(name)
}

// An alias takes the roles of its program (gsed those of sed).
for (const [alias, name] of Object.entries(familyTable((family) => family.aliases))) {
  const roles = TABLE[name]
  if (roles !== undefined) TABLE[alias] ??= roles
}

/** The argument roles of a program (by normalised name), when the catalog describes it. */
export function programRoles(name: string): ProgramRoles | undefined {
  if (Object.hasOwn(TABLE, name)) return TABLE[name]
  if (/^(python|pypy)[0-9.]*$/.test(name)) return TABLE.python
  if (/^node(js)?[0-9.]*$/.test(name)) return TABLE.node
  return undefined
}

const NO_VALUES: Readonly<Record<string, ArgumentRole>> = Object.freeze({})

/** The value-taking options of a program's roles for one argument list (none without roles). */
export function valueRoles(
  roles: ProgramRoles | undefined,
  args: readonly string[],
): Readonly<Record<string, ArgumentRole>> {
  if (roles?.values === undefined) return NO_VALUES
  return typeof roles.values === 'function' ? roles.values(args) : roles.values
}

/** Every program the role table describes. */
export function programsWithRoles(): readonly string[] {
  return Object.keys(TABLE)
}
