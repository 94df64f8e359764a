import type { ValueRole } from '../value-roles.js'
import type { ProgramFamily } from './program-family.js'

// cargo `--config KEY=VALUE` settings that name no program; a value without `=` is a file.
const CARGO_SAFE_SETTING =
  /^(net\.(offline|retry|git-fetch-with-cli)|build\.(jobs|incremental)|term\.[a-z-]+|http\.(timeout|multiplexing)|profile\.[A-Za-z0-9_-]+\.(opt-level|debug|debug-assertions|overflow-checks|lto|codegen-units|incremental|panic|strip|split-debuginfo))\s*=\s*[A-Za-z0-9_."'-]*$/
const cargoConfig = (value: string): ValueRole =>
  !value.includes('=') ? 'config-file' : CARGO_SAFE_SETTING.test(value) ? 'data' : 'program'

/** cargo, the Rust build tool and package manager. */
export const CARGO_FAMILY: ProgramFamily = {
  globalOptions: {
    cargo: {
      withValue: ['--color', '-C', '--config', '-Z', '--explain'],
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
