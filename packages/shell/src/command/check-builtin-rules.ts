import { type BuiltinFinding, exec, type ProgramSpec, unknownGlobal } from './builtin-finding.js'
import { checkGit } from './check-git-rules.js'
import { findSubcommand, hasGlobalOptions } from './global-options.js'
import { programKind, programName } from './program-catalog.js'
import { programValueFindings } from './program-value-models.js'
import { familyTable } from './programs/program-families.js'
import { findFlag, usesFlag } from './uses-flag.js'

export type { BuiltinFinding } from './builtin-finding.js'

// Node options that load code, passed on by `npm test -- …` when the script runs node.
const NODE_CODE_FLAGS = [
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '--eval',
  '--print',
  '--env-file',
  '--inspect',
  '--inspect-brk',
  '--experimental-policy',
]

function checkPackageManager(args: readonly string[], name: string): BuiltinFinding[] {
  const end = args.indexOf('--')
  const used = args.find(
    (argument, index) =>
      findFlag(argument, NODE_CODE_FLAGS) !== undefined ||
      (end !== -1 &&
        index > end &&
        /^-[A-Za-z]*[rep]/.test(argument) &&
        !argument.startsWith('--')),
  )
  return used === undefined
    ? []
    : [
        exec(
          `${name} passes ${used} on to the script, which makes node load or run other code.`,
          `Run ${name} test without node options that load code (--require, -r, --import, --loader).`,
        ),
      ]
}

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

function checkGo(args: readonly string[]): BuiltinFinding[] {
  const findings: BuiltinFinding[] = []
  for (const argument of args) {
    const normalised = argument.startsWith('--') ? argument.slice(1) : argument
    const flag = findFlag(normalised, ['-exec', '-toolexec', '-overlay'], 'single')
    if (flag !== undefined)
      findings.push(exec(`go ${flag} runs another program.`, 'Run go without -exec or -toolexec.'))
  }
  if (args[0] === 'run' && args.some((argument) => argument.includes('@'))) {
    findings.push(
      exec(
        'go run MODULE@VERSION downloads and runs code.',
        'Run code from the workspace only.',
        'command_wrapper',
      ),
    )
  }
  return findings
}

function checkSocat(args: readonly string[]): BuiltinFinding[] {
  const address = args.find((argument) => /(^|[!,])\s*(exec|system):/i.test(argument))
  return address === undefined
    ? []
    : [exec(`socat ${address} runs a program.`, 'Use socat only between sockets and files.')]
}

// The built-in rules of the program families (flags and subcommands that run code or write
// files), with the checks of this folder that families cannot hold without an import cycle.
const CUSTOM_CHECKS: Readonly<Record<string, NonNullable<ProgramSpec['custom']>>> = {
  git: checkGit,
  npm: checkPackageManager,
  pnpm: checkPackageManager,
  yarn: checkPackageManager,
  make: checkMake,
  go: checkGo,
  socat: checkSocat,
}
const PROGRAMS: Readonly<Record<string, ProgramSpec>> = withCustomChecks(
  familyTable((family) => family.builtins),
  CUSTOM_CHECKS,
)

function withCustomChecks(
  specs: Record<string, ProgramSpec>,
  checks: Readonly<Record<string, NonNullable<ProgramSpec['custom']>>>,
): Record<string, ProgramSpec> {
  for (const [name, custom] of Object.entries(checks)) specs[name] = { ...specs[name], custom }
  return specs
}

const ALIASES: Readonly<Record<string, string>> = {
  ...familyTable((family) => family.aliases),
  gmake: 'make',
  chromium: 'chrome',
  'chromium-browser': 'chrome',
  'google-chrome': 'chrome',
  'google-chrome-stable': 'chrome',
  electron: 'chrome',
  'g++': 'gcc',
  cc: 'gcc',
  'c++': 'gcc',
  clang: 'gcc',
  'clang++': 'gcc',
  ncat: 'nc',
  latex: 'pdflatex',
  xelatex: 'pdflatex',
  lualatex: 'pdflatex',
  pdftex: 'pdflatex',
  tex: 'pdflatex',
  etex: 'pdflatex',
  luatex: 'pdflatex',
  xetex: 'pdflatex',
  rpmbuild: 'rpm',
  rpmdb: 'rpm',
  rpmverify: 'rpm',
  apt: 'apt-get',
  dnf: 'yum',
  pip3: 'pip',
  rpmquery: 'rpm',
  netcat: 'nc',
}

/**
 * The built-in rules for programs that run other programs through their own flags or
 * subcommands (`find -exec`, `git -c`, `rg --pre`, `sed e`, `awk system()`, `npm exec` …).
 * They apply even when the policy allows the program.
 */
export function checkBuiltinRules(name: string, args: readonly string[]): BuiltinFinding[] {
  const key = (Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined) ?? name
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
      if (flag === undefined) continue
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
