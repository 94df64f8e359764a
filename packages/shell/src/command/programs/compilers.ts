import { type BuiltinFinding, exec } from '../builtin-finding.js'
import type { ValueOption } from '../value-roles.js'
import type { ProgramFamily } from './program-family.js'

// The compilers, assemblers and linkers that read more options from `@file`.
const RESPONSE_FILE_READERS = [
  'gcc',
  'g++',
  'cc',
  'c++',
  'clang',
  'clang++',
  'cpp',
  'as',
  'ld',
  'ld.bfd',
  'ld.gold',
  'ld.lld',
  'lld',
]
/** The versioned names of those programs (gcc-12, ld.lld-17), with the name they carry. */
export const VERSIONED_COMPILER =
  /^(gcc|g\+\+|cc|c\+\+|clang|clang\+\+|ld|ld\.bfd|ld\.gold|ld\.lld|lld|as|cpp)-\d+$/

/** A response file (`gcc @opts`) holds more options, which can name programs. */
export function checkResponseFile(args: readonly string[], name: string): BuiltinFinding[] {
  const response = args.find((argument) => argument.startsWith('@'))
  return response === undefined
    ? []
    : [
        exec(
          `${name} ${response} reads more options from a file (a config file), which can name programs (-wrapper, -B, -fplugin).`,
          `Pass the options on the command line instead of through ${response}.`,
        ),
      ]
}

const CLANG_VALUES: readonly ValueOption[] = [
  {
    spellings: ['--config'],
    role: 'config-file',
    why: 'a clang config file holds options, which can name programs (-B, -fplugin)',
  },
]

/** The C compilers: gcc and clang (and cc, c++, g++, clang++, which take gcc's roles). */
export const COMPILERS_FAMILY: ProgramFamily = {
  aliases: { 'g++': 'gcc', cc: 'gcc', 'c++': 'gcc', clang: 'gcc', 'clang++': 'gcc' },
  /** Options that run or load another program. */
  builtins: {
    gcc: {
      style: 'single',
      flags: [
        {
          flags: ['-wrapper', '-fplugin', '-specs', '--specs', '-B'],
          kind: 'exec',
          why: 'runs or loads another program',
        },
      ],
    },
  },
  roles: {
    gcc: {
      operands: 'read',
      values: {
        '-o': 'write',
        '-MF': 'write',
        '-I': 'read',
        '-L': 'read',
        '-l': 'inert',
        '-D': 'inert',
        '-U': 'inert',
        '-x': 'inert',
        '-include': 'read',
        '-B': 'command',
        '-wrapper': 'command',
        '-specs': 'command',
        '--specs': 'command',
        '-fplugin': 'command',
      },
    },
  },
  valueChecks: Object.fromEntries(RESPONSE_FILE_READERS.map((name) => [name, checkResponseFile])),
  valueOptions: { clang: CLANG_VALUES, 'clang++': CLANG_VALUES },
}
