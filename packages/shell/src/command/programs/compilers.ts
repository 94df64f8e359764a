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

// Words handed on to the linker, assembler, preprocessor or clang's frontend that read a
// response file or load code into it (`-Wl,@opts`, `-Wl,-plugin,x.so`, `-Xclang -load`).
const LOADS_CODE = /^(@|--?plugin|--?load|-fpass-plugin|--load-pass-plugin)/
const PASS_ON = /^-W[alp],/
const PASS_NEXT = new Set(['-Xlinker', '-Xassembler', '-Xpreprocessor', '-Xclang'])

/** Options a compiler hands on to the tools it runs, which read files or load code. */
export function checkPassedOn(args: readonly string[], name: string): BuiltinFinding[] {
  const passed = args.flatMap((argument, index) => {
    if (PASS_ON.test(argument)) return argument.split(',').slice(1)
    const next = args[index + 1]
    return PASS_NEXT.has(argument) && next !== undefined ? [next] : []
  })
  const loads = passed.find((word) => LOADS_CODE.test(word))
  return loads === undefined
    ? []
    : [
        exec(
          `${name} hands ${loads} on to the linker, assembler or frontend, which reads more options from a file or loads a plugin.`,
          'Pass plain options only (-Wl,--as-needed, -Wl,-rpath,DIR).',
        ),
      ]
}

// The linker a compiler runs: a known name, never a path.
const linkerRole = (value: string) => (/^(bfd|gold|lld|mold)$/.test(value) ? 'data' : 'program')

const COMPILER_VALUES: readonly ValueOption[] = [
  { spellings: ['-fuse-ld'], role: linkerRole, why: 'a linker given by path runs that program' },
  { spellings: ['--ld-path'], role: 'program', why: 'clang runs the linker at that path' },
  { spellings: ['-fpass-plugin'], role: 'program', why: 'clang loads the pass plugin' },
  {
    spellings: ['--gcc-toolchain', '-ccc-install-dir'],
    role: 'program',
    why: 'the compiler runs the assembler and linker it finds there',
  },
]

const CLANG_VALUES: readonly ValueOption[] = [
  ...COMPILER_VALUES,
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
  valueChecks: Object.fromEntries(
    RESPONSE_FILE_READERS.map((name) => [
      name,
      (args: readonly string[], program: string) => [
        ...checkResponseFile(args, program),
        ...checkPassedOn(args, program),
      ],
    ]),
  ),
  valueOptions: {
    gcc: COMPILER_VALUES,
    'g++': COMPILER_VALUES,
    cc: COMPILER_VALUES,
    'c++': COMPILER_VALUES,
    clang: CLANG_VALUES,
    'clang++': CLANG_VALUES,
  },
}
