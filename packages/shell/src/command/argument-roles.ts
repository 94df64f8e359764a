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

const FAMILY_ROLES: Record<string, ProgramRoles> = Object.fromEntries(
  Object.entries(familyTable((family) => family.roles)).map(([name, roles]) => [
    name,
    'operandsBySubcommand' in roles ? subcommandProgramRoles(name, roles) : roles,
  ]),
)

const TABLE: Record<string, ProgramRoles> = {
  ...FAMILY_ROLES,
  xxd: {
    operands: 'second-write',
    values: {
      '-c': 'inert',
      '-g': 'inert',
      '-l': 'inert',
      '-s': 'inert',
      '-o': 'inert',
      '-n': 'inert',
    },
  },
  iconv: {
    operands: 'read',
    values: {
      '-o': 'write',
      '--output': 'write',
      '-f': 'inert',
      '-t': 'inert',
      '--from-code': 'inert',
      '--to-code': 'inert',
    },
  },
  openssl: {
    operands: 'unknown',
    values: {
      '-in': 'read',
      '-out': 'write',
      '-inkey': 'read',
      '-key': 'read',
      '-keyout': 'write',
      '-CAfile': 'read',
      '-CApath': 'read',
      '-cert': 'read',
      '-config': 'command',
      '-engine': 'command',
      '-passin': 'read',
      '-passout': 'read',
      '-rand': 'read',
      '-writerand': 'write',
    },
  },
}

const ALIASES: readonly (readonly [string, string])[] = [
  ...Object.entries(familyTable((family) => family.aliases)),
  ['g++', 'gcc'],
  ['cc', 'gcc'],
  ['c++', 'gcc'],
  ['clang', 'gcc'],
  ['clang++', 'gcc'],
  ['gmake', 'make'],
]
for (const [alias, name] of ALIASES) {
  const spec = TABLE[name]
  if (spec !== undefined) TABLE[alias] ??= spec
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
