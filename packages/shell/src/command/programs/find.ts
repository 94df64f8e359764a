import { fileListFlags, type ProgramSpec } from '../builtin-finding.js'
import type { OperandRoles, ProgramFamily } from './program-family.js'

// find deletes or writes what it finds with these actions.
const findOperands = (args: readonly string[]): OperandRoles =>
  args.some((argument) => ['-delete', '-fprint', '-fprint0', '-fprintf', '-fls'].includes(argument))
    ? 'write'
    : 'read'
// Primaries whose value is a pattern, a number or a name, never a path.
const FIND_INERT = [
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-wholename',
  '-iwholename',
  '-regex',
  '-iregex',
  '-type',
  '-xtype',
  '-maxdepth',
  '-mindepth',
  '-size',
  '-mtime',
  '-mmin',
  '-atime',
  '-amin',
  '-ctime',
  '-cmin',
  '-perm',
  '-user',
  '-group',
  '-uid',
  '-gid',
  '-links',
  '-inum',
  '-printf',
  '-fstype',
  '-regextype',
  '-lname',
  '-ilname',
  '-used',
  '-context',
]
// fd's options that run a command for each match.
const FD_EXEC: ProgramSpec = {
  flags: [
    {
      flags: ['-x', '--exec', '-X', '--exec-batch'],
      kind: 'exec',
      why: 'runs a command for every match',
    },
  ],
}

/**
 * The file finders: find (and gfind, which takes its roles) and fd. They read the trees they
 * are given; their actions can run a command for every match, or delete and write files.
 */
export const FIND_FAMILY: ProgramFamily = {
  aliases: { gfind: 'find' },
  builtins: {
    find: {
      style: 'single',
      flags: [
        {
          flags: ['-exec', '-execdir', '-ok', '-okdir'],
          kind: 'exec',
          why: 'runs a command for every match',
        },
        {
          flags: ['-delete', '-fprint', '-fprint0', '-fprintf', '-fls'],
          kind: 'write',
          why: 'deletes or writes files',
        },
        fileListFlags(['-files0-from']),
      ],
    },
    fd: FD_EXEC,
    fdfind: FD_EXEC,
  },
  roles: {
    find: {
      operands: findOperands,
      values: {
        ...Object.fromEntries(FIND_INERT.map((primary) => [primary, 'inert' as const])),
        '-fprint': 'write',
        '-fprint0': 'write',
        '-fprintf': 'write',
        '-fls': 'write',
        '-newer': 'read',
        '-anewer': 'read',
        '-cnewer': 'read',
        '-samefile': 'read',
        '-files0-from': 'read',
      },
    },
    fd: { operands: 'read' },
    fdfind: { operands: 'read' },
  },
}
