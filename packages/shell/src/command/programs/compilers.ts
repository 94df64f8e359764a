import type { ProgramFamily } from './program-family.js'

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
  valueOptions: {
    clang: [
      {
        spellings: ['--config'],
        role: 'config-file',
        why: 'a clang config file holds options, which can name programs (-B, -fplugin)',
      },
    ],
  },
}
