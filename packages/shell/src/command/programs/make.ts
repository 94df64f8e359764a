import { type BuiltinFinding, exec } from '../builtin-finding.js'
import { programKind, programName } from '../program-catalog.js'
import { usesFlag } from '../uses-flag.js'
import type { ProgramFamily } from './program-family.js'

function checkMake(args: readonly string[]): BuiltinFinding[] {
  const findings: BuiltinFinding[] = []
  for (const argument of args) {
    if (usesFlag(argument, '--eval') || usesFlag(argument, '-E')) {
      findings.push(
        exec(
          'make --eval/-E evaluates makefile text, which can run commands.',
          'Run a make target without --eval.',
        ),
      )
      continue
    }
    const assignment = /^([A-Za-z_.][A-Za-z0-9_.-]*)\s*[:+?!]?=(.*)$/s.exec(argument)
    if (argument.startsWith('-') || assignment === null) continue
    const [, variable = '', value = ''] = assignment
    if (isPlainMakeSetting(variable, value)) continue
    findings.push(
      exec(
        `make ${variable}=… overrides a variable that names a program, its flags or make's own settings (CC, SHELL, CFLAGS, MAKEFLAGS, …), or gives it a value that is more than a plain word, which can change the commands a recipe runs.`,
        'Run the make target without this override; plain settings (VERBOSE=1, DEBUG=true) are fine.',
      ),
    )
  }
  return findings
}

// Variables that name a program, a program's flags, or a setting of make itself.
const MAKE_PROGRAM_VARIABLE =
  /^(\.|MAKE|MFLAGS|GNUMAKEFLAGS)|(^|_)(SHELL|CC|CXX|CPP|LD|AR|AS|FC|RM|CMD|COMMAND|PROG|PROGRAM|TOOL|EXEC|EDITOR|PAGER|WRAPPER|LAUNCHER|PYTHON|NODE|PERL|RUBY|GO|CARGO|RUSTC|INSTALL|LEX|YACC|M4|STRIP|OBJCOPY|NM|RANLIB|LIBS|LDLIBS|RUNNER|EMULATOR|INTERPRETER)($|_)|FLAGS$|OPTS$|OPTIONS$/i

// `VERBOSE=1`, `DEBUG=true`, `ENV=production`: a word that is neither a path, a flag nor a program.
function isPlainMakeSetting(variable: string, value: string): boolean {
  if (MAKE_PROGRAM_VARIABLE.test(variable)) return false
  if (!/^[A-Za-z0-9_.,:+]*$/.test(value)) return false
  return programKind(programName(value)) === undefined
}

/** make (and gmake, which takes its roles). */
export const MAKE_FAMILY: ProgramFamily = {
  aliases: { gmake: 'make' },
  /** `--eval` and variable overrides that change the commands a recipe runs. */
  builtins: { make: { custom: checkMake } },
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
