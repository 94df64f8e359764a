import type { ProgramFamily } from './program-family.js'

/** make (and gmake, which takes its roles). */
export const MAKE_FAMILY: ProgramFamily = {
  roles: {
    make: {
      operands: 'inert',
      values: {
        '-C': 'read',
        '--directory': 'read',
        '-f': 'read',
        '--file': 'read',
        '--makefile': 'read',
        '-I': 'read',
        '--include-dir': 'read',
        '-o': 'inert',
        '-W': 'inert',
      },
    },
  },
  valueOptions: {
    make: [
      {
        spellings: ['-I', '--include-dir'],
        role: 'config-file',
        why: 'make searches it for the makefiles it includes, whose recipes run',
      },
    ],
  },
}
