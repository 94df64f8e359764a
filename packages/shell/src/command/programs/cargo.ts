import { type BuiltinFinding, exec, outsideWrite } from '../builtin-finding.js'
import type { ValueRole } from '../value-roles.js'
import type { ProgramFamily } from './program-family.js'

// cargo `--config KEY=VALUE` settings that name no program; a value without `=` is a file.
const CARGO_SAFE_SETTING =
  /^(net\.(offline|retry|git-fetch-with-cli)|build\.(jobs|incremental)|term\.[a-z-]+|http\.(timeout|multiplexing)|profile\.[A-Za-z0-9_-]+\.(opt-level|debug|debug-assertions|overflow-checks|lto|codegen-units|incremental|panic|strip|split-debuginfo))\s*=\s*[A-Za-z0-9_."'-]*$/
const cargoConfig = (value: string): ValueRole =>
  !value.includes('=') ? 'config-file' : CARGO_SAFE_SETTING.test(value) ? 'data' : 'program'

// rustc options (after `cargo rustc --`) that name a linker or pass it arguments.
const RUSTC_PROGRAM_OPTION =
  /^(-C\s*)?(linker|link-args?|pre-link-args?|linker-flavor|llvm-args|profile-use|profile-generate)(=|$)|^-Z/
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

// cargo's own checks, then `cargo +TOOLCHAIN` with a path, which runs the toolchain there.
function checkCargoValues(args: readonly string[]): BuiltinFinding[] {
  const findings = cargoProgramFindings(args)
  const end = args.indexOf('--')
  const words = end === -1 ? args : args.slice(0, end)
  const subcommand = cargoSubcommand(words)
  if (
    (subcommand === 'install' || subcommand === 'uninstall') &&
    !words.some((word) => word === '--root' || word.startsWith('--root='))
  )
    findings.push(
      outsideWrite(
        `cargo ${subcommand}`,
        subcommand,
        'the programs it builds into ~/.cargo/bin, a folder on the PATH',
        'Install into the workspace with --root (cargo install --root tools NAME), or build with cargo build.',
      ),
    )
  if (args.some((argument) => argument.startsWith('+') && argument.includes('/')))
    findings.push(
      exec(
        'cargo +TOOLCHAIN with a path runs the toolchain in that folder.',
        'Name an installed toolchain (cargo +stable build), not a folder.',
      ),
    )
  return findings
}

const CARGO_GLOBAL_VALUES = ['--color', '-C', '--config', '-Z', '--explain']

// The subcommand: the first word that is neither a global option (with its value) nor `+toolchain`.
function cargoSubcommand(words: readonly string[]): string | undefined {
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] ?? ''
    if (CARGO_GLOBAL_VALUES.includes(word)) index += 1
    else if (!word.startsWith('-') && !word.startsWith('+')) return word
  }
  return undefined
}

/** cargo, the Rust build tool and package manager. */
export const CARGO_FAMILY: ProgramFamily = {
  globalOptions: {
    cargo: {
      withValue: CARGO_GLOBAL_VALUES,
      flags: [
        '-v',
        '-vv',
        '--verbose',
        '-q',
        '--quiet',
        '--locked',
        '--offline',
        '--frozen',
        '--list',
        '-V',
        '--version',
        '-h',
        '--help',
      ],
      extraPrefix: '+',
    },
  },
  roles: {
    cargo: {
      operands: 'unknown',
      values: {
        '--manifest-path': 'read',
        '--target-dir': 'write',
        '-p': 'inert',
        '--package': 'inert',
        '-j': 'inert',
        '--features': 'inert',
        '-F': 'inert',
        '--bin': 'inert',
        '--test': 'inert',
        '--target': 'inert',
        '--config': 'command',
        '-Z': 'command',
      },
    },
  },
  valueChecks: { cargo: checkCargoValues },
  valueOptions: {
    cargo: [
      {
        spellings: ['--config'],
        role: cargoConfig,
        why: 'cargo settings can name programs (build.rustc-wrapper, target.*.runner, linker, alias.*) and a file of them',
      },
    ],
  },
}
