import { type BuiltinFinding, exec } from './builtin-finding.js'
import { GO_ENV_SAFE_SETTING } from './programs/go.js'
import { familyTable } from './programs/program-families.js'
import { codeRoleFindings, type ValueOption } from './value-roles.js'

const MODELS: Readonly<Record<string, readonly ValueOption[]>> = {
  ...familyTable((family) => family.valueOptions),
}

// A Map: a program named like an Object.prototype key (`constructor`) is no alias.
const ALIASES: ReadonlyMap<string, string> = new Map([
  ['py.test', 'pytest'],
  ['clang++', 'clang'],
])
// rustc options (after `cargo rustc --`) that name a linker or pass it arguments.
const RUSTC_PROGRAM_OPTION =
  /^(-C\s*)?(linker|link-args?|pre-link-args?|linker-flavor|llvm-args|profile-use|profile-generate)(=|$)|^-Z/
// Programs with value rules of their own below the table.
const OTHER_MODELS = new Set(['npm', 'pnpm', 'yarn'])
const COMPILERS = new Set(['gcc', 'g++', 'cc', 'c++', 'clang', 'clang++', 'cpp', 'as'])
for (const linker of ['ld', 'ld.bfd', 'ld.gold', 'ld.lld', 'lld']) COMPILERS.add(linker)
const GCC_FAMILY =
  /^(gcc|g\+\+|cc|c\+\+|clang|clang\+\+|ld|ld\.bfd|ld\.gold|ld\.lld|lld|as|cpp)(-\d+)?$/

/**
 * The value-role findings of one program: option values that would run a program or read a
 * config file (see `value-roles.ts`), `go env -w` settings that persist such flags, and
 * compiler response files (`gcc @file`).
 */
export function programValueFindings(name: string, args: readonly string[]): BuiltinFinding[] {
  const key = ALIASES.get(name) ?? name
  const compiler = COMPILERS.has(key) || (key.includes('-') && GCC_FAMILY.test(key))
  if (!compiler && !Object.hasOwn(MODELS, key) && !OTHER_MODELS.has(key)) return []
  const findings = codeRoleFindings(name, args, MODELS[key] ?? [])
  if (key === 'go') findings.push(...goEnvFindings(args))
  if (key === 'cargo') findings.push(...cargoProgramFindings(args))
  if (key === 'npm' || key === 'pnpm' || key === 'yarn') {
    const setting = args.find((argument) => argument.startsWith('--config.'))
    if (setting !== undefined)
      findings.push(
        exec(
          `${name} ${setting} sets package-manager configuration, which can name the programs it runs (script-shell, node-options).`,
          `Run ${name} without --config.…; if it must take it, the policy needs commands.rules.${name}.allowExec: true.`,
        ),
      )
  }
  if (
    key === 'cargo' &&
    args.some((argument) => argument.startsWith('+') && argument.includes('/'))
  )
    findings.push(
      exec(
        'cargo +TOOLCHAIN with a path runs the toolchain in that folder.',
        'Name an installed toolchain (cargo +stable build), not a folder.',
      ),
    )
  if (compiler) {
    const response = args.find((argument) => argument.startsWith('@'))
    if (response !== undefined)
      findings.push(
        exec(
          `${name} ${response} reads more options from a file (a config file), which can name programs (-wrapper, -B, -fplugin).`,
          `Pass the options on the command line instead of through ${response}.`,
        ),
      )
  }
  return findings
}

// `go env -w KEY=VALUE` persists settings for every later go command.
function goEnvFindings(args: readonly string[]): BuiltinFinding[] {
  if (args[0] !== 'env') return []
  const writes = args.indexOf('-w')
  if (writes === -1 && !args.some((argument) => argument.startsWith('-w='))) return []
  const settings = args.slice(1).filter((argument) => !argument.startsWith('-'))
  const refused = settings.find((setting) => !GO_ENV_SAFE_SETTING.test(setting))
  if (refused === undefined && settings.length > 0) return []
  return [
    exec(
      `go env -w ${refused ?? ''} persists a setting that can name programs or flags (GOFLAGS, CC, CXX, GOTOOLCHAIN, …) for every later go command.`,
      'Persist only plain settings (GOPRIVATE, GOPROXY, CGO_ENABLED); pass build flags on the command line.',
    ),
  ]
}

// `cargo -Z…` turns on unstable features (config-include, host-config); `cargo rustc -- -C
// linker=…` names a program for rustc.
function cargoProgramFindings(args: readonly string[]): BuiltinFinding[] {
  const end = args.indexOf('--')
  const before = end === -1 ? args : args.slice(0, end)
  const unstable = before.find((argument) => argument.startsWith('-Z'))
  if (unstable !== undefined)
    return [
      exec(
        `cargo ${unstable} turns on unstable features, some of which read more configuration (config-include, host-config).`,
        'Run cargo without -Z, or let the policy allow it with commands.rules.cargo.allowExec: true.',
      ),
    ]
  const subcommand = before.find((argument) => !argument.startsWith('-'))
  if (end === -1 || (subcommand !== 'rustc' && subcommand !== 'rustdoc')) return []
  const words = args.slice(end + 1)
  const named = words.find(
    (word, index) =>
      RUSTC_PROGRAM_OPTION.test(word) ||
      ((word === '-C' || word === '--codegen') &&
        RUSTC_PROGRAM_OPTION.test(words[index + 1] ?? '')),
  )
  return named === undefined
    ? []
    : [
        exec(
          `cargo ${subcommand} -- ${named} names a linker, its arguments or unstable rustc options (a program to run).`,
          `Run cargo ${subcommand} without linker options.`,
        ),
      ]
}
