import { type BuiltinFinding, exec, type FlagRule, outsideWrite } from '../builtin-finding.js'
import { findFlag } from '../uses-flag.js'
import type { ProgramFamily } from './program-family.js'

const PACKAGE_MANAGER_FLAGS: FlagRule = {
  flags: [
    '--script-shell',
    '--node-options',
    '--shell',
    '--editor',
    '--browser',
    '--git',
    '--userconfig',
    '--globalconfig',
    '--onload-script',
    '--call',
    '--init-module',
    '--viewer',
    '--node-gyp',
    '--shell-mode',
    '-c',
  ],
  kind: 'exec',
  why: 'sets the program that the package manager runs (shell, node options, editor, config file)',
  ownOptions: ['--global'],
}

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
  const words = ownWords(args)
  const at = subcommandAt(words, name)
  const findings = [...globalWrites(words, words[at], name), ...configFindings(words, at, name)]
  if (used !== undefined)
    findings.push(
      exec(
        `${name} passes ${used} on to the script, which makes node load or run other code.`,
        `Run ${name} test without node options that load code (--require, -r, --import, --loader).`,
      ),
    )
  return findings
}

// `--config.KEY=VALUE` sets package-manager configuration, which can name the programs it runs.
function checkPackageManagerConfig(args: readonly string[], name: string): BuiltinFinding[] {
  const setting = args.find((argument) => argument.startsWith('--config.'))
  return setting === undefined
    ? []
    : [
        exec(
          `${name} ${setting} sets package-manager configuration, which can name the programs it runs (script-shell, node-options).`,
          `Run ${name} without --config.…; if it must take it, the policy needs commands.rules.${name}.allowExec: true.`,
        ),
      ]
}

const GLOBAL_HINT =
  'Install into the workspace (npm install -D x, then npx x), not into the global prefix.'

// Subcommands that only read the global prefix (`npm ls -g`, `npm root -g`).
const GLOBAL_READS = new Set([
  'ls',
  'list',
  'la',
  'll',
  'outdated',
  'root',
  'prefix',
  'bin',
  'view',
  'info',
  'show',
  'explain',
  'why',
  'query',
  'search',
  'help',
])

// Before `--`: the package manager's own words, not the script's.
function ownWords(args: readonly string[]): readonly string[] {
  const end = args.indexOf('--')
  return end === -1 ? args : args.slice(0, end)
}

// The package managers' options before the subcommand that take a value.
const NPM_GLOBAL_VALUES = [
  '--prefix',
  '-C',
  '--loglevel',
  '--registry',
  '--cache',
  '--userconfig',
  '--globalconfig',
  '--workspace',
  '-w',
  '--include',
  '--omit',
  '--tag',
  '--otp',
  '--color',
  '--script-shell',
  '--node-options',
]
const PNPM_GLOBAL_VALUES = [
  '-C',
  '--dir',
  '--filter',
  '-F',
  '--reporter',
  '--loglevel',
  '--workspace-dir',
]
const YARN_GLOBAL_VALUES = [
  '--cwd',
  '--cache-folder',
  '--modules-folder',
  '--mutex',
  '--network-timeout',
]
const GLOBAL_VALUES: Readonly<Record<string, readonly string[]>> = {
  npm: NPM_GLOBAL_VALUES,
  pnpm: PNPM_GLOBAL_VALUES,
  yarn: YARN_GLOBAL_VALUES,
}

// The subcommand of a package manager's own words, after its options and their values.
function subcommandAt(words: readonly string[], name: string): number {
  const values = GLOBAL_VALUES[name] ?? []
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] ?? ''
    if (values.includes(word)) index += 1
    else if (!word.startsWith('-')) return index
  }
  return -1
}

// Subcommands that write the global prefix or the user's shell configuration, whatever their flags.
const OUTSIDE_SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  npm: ['link', 'ln'],
  pnpm: ['setup'],
  yarn: ['global', 'link'],
}

// Keys whose value is a credential: `npm config get` would print it.
const CREDENTIAL_KEY = /auth|token|password|cert|key|otp|:_/i

/**
 * `config`/`c`: only `get KEY` of a key that holds no credential, and `list`/`ls`, which hide
 * credentials, only read the configuration; `set`, `edit`, `delete` and the rest change which
 * programs the package manager runs (script-shell, node-options) or print secrets.
 */
function configFindings(words: readonly string[], at: number, name: string): BuiltinFinding[] {
  if (words[at] !== 'config' && words[at] !== 'c') return []
  const [action = '', ...rest] = words.slice(at + 1).filter((word) => !word.startsWith('-'))
  const reads =
    ((action === 'list' || action === 'ls') && rest.length === 0) ||
    (action === 'get' && rest.length > 0 && !rest.some((key) => CREDENTIAL_KEY.test(key)))
  if (reads) return []
  return [
    exec(
      `${name} ${words[at]} runs another program or changes which program runs.`,
      `Read settings only (${name} config get KEY, ${name} config list); change them outside the agent.`,
      'command_wrapper',
    ),
  ]
}

/**
 * Installs, links and settings in the global prefix or the user's configuration, from the
 * package manager's own words and its subcommand: `-g`, `--global`, `--location=global`,
 * `npm link`, `pnpm setup`, `yarn global`.
 */
function globalWrites(
  words: readonly string[],
  subcommand: string | undefined,
  name: string,
): BuiltinFinding[] {
  const global =
    !GLOBAL_READS.has(subcommand ?? '') &&
    words.find(
      (word, index) =>
        word === '-g' ||
        word === '--global' ||
        word === '--location=global' ||
        (word === '--location' && words[index + 1] === 'global'),
    )
  if (typeof global === 'string')
    return [outsideWrite(`${name} ${global}`, global, 'the global package folder', GLOBAL_HINT)]
  if (subcommand !== undefined && (OUTSIDE_SUBCOMMANDS[name] ?? []).includes(subcommand))
    return [
      outsideWrite(
        `${name} ${subcommand}`,
        subcommand,
        "the global package folder or the user's shell configuration",
        GLOBAL_HINT,
      ),
    ]
  return []
}

/** node and its package managers (npm, pnpm, yarn), and the JavaScript tools they run. */
export const NODE_FAMILY: ProgramFamily = {
  /**
   * Package managers: flags that set the program they run, subcommands that run another, and
   * node options passed on to a script.
   */
  builtins: {
    npm: {
      flags: [PACKAGE_MANAGER_FLAGS],
      execSubcommands: ['exec', 'x', 'explore', 'init', 'create', 'innit', 'edit', 'set'],
      custom: checkPackageManager,
    },
    pnpm: {
      flags: [PACKAGE_MANAGER_FLAGS],
      execSubcommands: ['dlx', 'exec', 'x', 'create', 'env'],
      custom: checkPackageManager,
    },
    yarn: {
      flags: [PACKAGE_MANAGER_FLAGS],
      execSubcommands: ['dlx', 'exec', 'create', 'node', 'set'],
      custom: checkPackageManager,
    },
  },
  globalOptions: {
    npm: {
      withValue: NPM_GLOBAL_VALUES,
      flags: [
        '-g',
        '--global',
        '-s',
        '--silent',
        '-q',
        '--quiet',
        '-d',
        '-dd',
        '-ddd',
        '--verbose',
        '--json',
        '-y',
        '--yes',
        '--no-audit',
        '--no-fund',
        '--offline',
        '--prefer-offline',
        '--ignore-scripts',
        '--workspaces',
        '-ws',
        '--if-present',
        '-v',
        '--version',
        '-h',
        '--help',
        '-l',
        '--long',
        '-p',
        '--parseable',
      ],
    },
    pnpm: {
      withValue: PNPM_GLOBAL_VALUES,
      flags: [
        '-r',
        '--recursive',
        '-w',
        '--workspace-root',
        '--silent',
        '-s',
        '--aggregate-output',
        '--color',
        '--no-color',
        '-v',
        '--version',
        '-h',
        '--help',
        '--frozen-lockfile',
        '--offline',
        '--prefer-offline',
      ],
    },
    yarn: {
      withValue: YARN_GLOBAL_VALUES,
      flags: [
        '-s',
        '--silent',
        '--verbose',
        '--offline',
        '--frozen-lockfile',
        '--non-interactive',
        '--no-progress',
        '-v',
        '--version',
        '-h',
        '--help',
      ],
    },
  },
  roles: {
    node: {
      operands: 'first-read',
      values: {
        '-e': 'command',
        '--eval': 'command',
        '-p': 'command',
        '--print': 'command',
        '-r': 'command',
        '--require': 'command',
        '--import': 'command',
        '--loader': 'command',
        '--test-reporter': 'inert',
        '--test-name-pattern': 'inert',
        '--test-reporter-destination': 'write',
      },
    },
    npm: {
      operands: 'unknown',
      values: {
        '--prefix': 'write',
        '-C': 'write',
        '--cache': 'write',
        '--userconfig': 'command',
        '--globalconfig': 'command',
        '-w': 'inert',
        '--workspace': 'inert',
        '--registry': 'url',
      },
    },
    pnpm: {
      operands: 'unknown',
      values: {
        '--dir': 'write',
        '-C': 'write',
        '--filter': 'inert',
        '-F': 'inert',
        '--store-dir': 'write',
        '--virtual-store-dir': 'write',
      },
    },
    yarn: {
      operands: 'unknown',
      values: { '--cwd': 'write', '--cache-folder': 'write', '--modules-folder': 'write' },
    },
  },
  valueChecks: {
    npm: checkPackageManagerConfig,
    pnpm: checkPackageManagerConfig,
    yarn: checkPackageManagerConfig,
  },
  valueOptions: {
    eslint: [
      { spellings: ['-c', '--config'], role: 'config-file', why: 'an eslint config is code' },
      { spellings: ['--rulesdir'], role: 'program', why: 'eslint loads rule modules from it' },
      { spellings: ['--plugin'], role: 'program', why: 'eslint imports the plugin' },
      { spellings: ['--parser'], role: 'program', why: 'eslint imports the parser' },
      {
        spellings: ['--resolve-plugins-relative-to'],
        role: 'program',
        why: 'eslint imports plugins from that folder',
      },
    ],
    prettier: [
      {
        spellings: ['--config'],
        role: 'config-file',
        why: 'a prettier config can be code and name plugins',
      },
      { spellings: ['--plugin'], role: 'program', why: 'prettier imports the plugin' },
    ],
    vitest: [
      { spellings: ['-c', '--config'], role: 'config-file', why: 'a vitest config is code' },
    ],
    jest: [
      { spellings: ['-c', '--config'], role: 'config-file', why: 'a jest config can be code' },
    ],
  },
}

// What an interpreter entry (`node FILE`, `node --test`) and an interpreter rule may be given.

/** Options of node that change neither what code runs nor where it is loaded from. */
export const NODE_SAFE = new Set([
  '--enable-source-maps',
  '--no-warnings',
  '--no-deprecation',
  '--trace-warnings',
  '--trace-deprecation',
  '--trace-uncaught',
  '--throw-deprecation',
  '--pending-deprecation',
  '--experimental-vm-modules',
  '--experimental-strip-types',
  '--no-experimental-strip-types',
  '--experimental-transform-types',
  '--preserve-symlinks',
  '--preserve-symlinks-main',
  '--abort-on-uncaught-exception',
  '--test-only',
])
/** Such options that take a value. */
export const NODE_SAFE_WITH_VALUE = new Set([
  '--max-old-space-size',
  '--max-semi-space-size',
  '--stack-size',
  '--stack-trace-limit',
  '--unhandled-rejections',
  '--input-type',
  '--conditions',
  '-C',
  '--title',
])
/** Options of node that only print information. */
export const NODE_INFO = new Set(['--version', '-v', '--help', '-h', '--v8-options'])

/** The node test runner's options, each with whether it takes a value. */
export const NODE_TEST_OPTIONS: Readonly<Record<string, boolean>> = {
  '--test-name-pattern': true,
  '--test-skip-pattern': true,
  '--test-concurrency': true,
  '--test-timeout': true,
  '--test-shard': true,
  '--test-reporter': true,
  '--test-reporter-destination': true,
  '--test-coverage-include': true,
  '--test-coverage-exclude': true,
  '--test-coverage-branches': true,
  '--test-coverage-functions': true,
  '--test-coverage-lines': true,
  '--test-only': false,
  '--test-update-snapshots': false,
  '--experimental-test-coverage': false,
  '--experimental-test-module-mocks': false,
  '--test-force-exit': false,
  '--watch': false,
}
/** Reporters built into node; any other value is a module node imports. */
export const NODE_REPORTERS = new Set(['spec', 'tap', 'dot', 'junit', 'lcov'])

/**
 * Under an explicit interpreter rule (`test`, `scripts`): the options of node allowed beside it,
 * fewer than {@link NODE_SAFE}.
 */
export const NODE_RULE_SAFE = new Set([
  '--enable-source-maps',
  '--no-warnings',
  '--test-only',
  '--no-deprecation',
])
/** Such options that take a value. */
export const NODE_RULE_SAFE_WITH_VALUE = new Set([
  '--test-reporter',
  '--test-name-pattern',
  '--test-concurrency',
  '--test-reporter-destination',
])
/** Options of an npx-style runner that change nothing it runs. */
export const RUNNER_SAFE = new Set(['-y', '--yes', '--no-install', '--offline', '-q', '--quiet'])
/** The npx-style runners: each runs a package by name. */
export const RUNNERS = new Set(['npx', 'pnpx', 'bunx', 'uvx', 'pipx'])

/**
 * Options of npx-style runners that change neither which program runs nor how, when the
 * runner's target is checked as run directly (`npx tsc`, `pnpm exec vitest`).
 */
export const RUNNER_QUIET = new Set([
  '-y',
  '--yes',
  '--no-install',
  '--no',
  '-q',
  '--quiet',
  '--offline',
  '--prefer-offline',
  '--silent',
])
/** The npx-style runners whose target, when the policy allows it, is checked as run directly. */
export const SAME_PROGRAM_RUNNERS = new Set(['npx', 'pnpx', 'bunx'])
/**
 * Package-manager subcommands that run a package's program with the words after it. A Map: a
 * program named like an Object.prototype key (`constructor`) is no entry.
 */
export const EXEC_RUNNER_SUBCOMMANDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['npm', new Set(['exec', 'x'])],
  ['pnpm', new Set(['exec', 'dlx'])],
])
