import { type BuiltinFinding, exec } from '../builtin-finding.js'
import type { ValueOption } from '../value-roles.js'
import type { ProgramFamily } from './program-family.js'

// pytest `-o KEY=VALUE` settings that load nothing; addopts, pythonpath, filterwarnings and
// plugin settings can.
const PYTEST_SAFE_INI =
  /^(cache_dir|python_files|python_classes|python_functions|testpaths|markers|console_output_style|log_cli|log_cli_level|log_level|log_format|log_date_format|junit_family|junit_suite_name|xfail_strict|norecursedirs|minversion|empty_parameter_set_mark|asyncio_mode|asyncio_default_fixture_loop_scope|timeout|verbosity_assertions|verbosity_test_cases)=/

// The options of pytest whose values can load code.
const PYTEST_VALUES: readonly ValueOption[] = [
  {
    spellings: ['-o', '--override-ini'],
    role: (value) => (PYTEST_SAFE_INI.test(value.replace(/^=/, '')) ? 'data' : 'program'),
    why: 'ini settings such as addopts, pythonpath, filterwarnings and plugin settings load code',
  },
  { spellings: ['--pdbcls'], role: 'program', why: 'pytest imports the debugger class' },
  {
    spellings: ['-W', '--pythonwarnings'],
    role: (value) => ((value.split(':')[2] ?? '').includes('.') ? 'program' : 'data'),
    why: 'a warning category with a module path imports that module',
  },
  {
    spellings: ['--tx'],
    role: (value) => (/^(\d+\*)?popen$/.test(value) ? 'data' : 'program'),
    why: 'an execnet gateway names a python or remote command to run',
  },
  {
    spellings: ['--cov-config'],
    role: 'config-file',
    why: 'a coverage config file can name plugins',
  },
  {
    spellings: ['-c', '--config-file'],
    role: 'config-file',
    why: 'pytest reads its settings (addopts, plugins) from it',
  },
]

// pytest -p NAME imports a plugin module; -p no:NAME only disables one.
function checkPytest(args: readonly string[]): BuiltinFinding[] {
  const plugin = args.find((argument, index) => {
    const value =
      argument === '-p'
        ? args[index + 1]
        : argument.startsWith('-p')
          ? argument.slice(2)
          : undefined
    return value !== undefined && !value.startsWith('no:')
  })
  return plugin === undefined
    ? []
    : [
        exec(
          `pytest ${plugin} loads a plugin module by name.`,
          'Run pytest without -p (or only -p no:NAME).',
        ),
      ]
}

/** python, pytest and uv. */
export const PYTHON_FAMILY: ProgramFamily = {
  // py.test is the old name of pytest.
  aliases: { 'py.test': 'pytest' },
  /**
   * pytest's plugins and upload of its output; project and environment managers: subcommands
   * that run another program.
   */
  builtins: {
    pytest: {
      flags: [
        {
          flags: ['--pastebin'],
          kind: 'write',
          why: "uploads the session's output to a paste service on the internet",
        },
      ],
      custom: checkPytest,
    },
    uv: { execSubcommands: ['run', 'tool'] },
    poetry: { execSubcommands: ['run', 'shell'] },
    pipenv: { execSubcommands: ['run', 'shell'] },
    pdm: { execSubcommands: ['run'] },
    hatch: { execSubcommands: ['run', 'shell'] },
    rye: { execSubcommands: ['run'] },
    pixi: { execSubcommands: ['run', 'exec', 'shell'] },
    conda: { execSubcommands: ['run'] },
    mamba: { execSubcommands: ['run'] },
    micromamba: { execSubcommands: ['run'] },
  },
  globalOptions: {
    uv: {
      withValue: [
        '--directory',
        '--project',
        '--cache-dir',
        '--config-file',
        '--python',
        '-p',
        '--color',
      ],
      flags: [
        '-q',
        '--quiet',
        '-v',
        '--verbose',
        '--offline',
        '--no-cache',
        '-n',
        '--native-tls',
        '--no-config',
        '--frozen',
        '--locked',
        '-h',
        '--help',
        '-V',
        '--version',
      ],
    },
  },
  roles: {
    python: {
      operands: 'first-read',
      values: { '-m': 'inert', '-c': 'command', '-W': 'inert', '-X': 'inert' },
    },
    pytest: {
      operands: 'read',
      values: {
        '--basetemp': 'write',
        '--junitxml': 'write',
        '--junit-xml': 'write',
        '--rootdir': 'write',
        '-c': 'read',
        '--confcutdir': 'read',
        '-k': 'inert',
        '-m': 'inert',
        '-p': 'command',
        '-o': 'unknown',
        '--override-ini': 'unknown',
        '--cov': 'read',
        '--cov-report': 'unknown',
        '--log-file': 'write',
        '--debug': 'write',
        '--cov-config': 'read',
      },
    },
  },
  valueOptions: { pytest: PYTEST_VALUES },
}

// What an interpreter entry (`python FILE`, `python -m NAME`) may be given.

/** Options of python that change neither what code runs nor where it is loaded from. */
export const PYTHON_SAFE = new Set([
  '-B',
  '-u',
  '-O',
  '-OO',
  '-q',
  '-s',
  '-E',
  '-I',
  '-P',
  '-b',
  '-bb',
])
/** Options of python that only print information. */
export const PYTHON_INFO = new Set(['--version', '-V', '-VV', '--help', '-h'])
/** `python -X` settings that change nothing that runs. */
export const PYTHON_X_SAFE =
  /^(dev|utf8(=[01])?|importtime|tracemalloc(=\d+)?|faulthandler|warn_default_encoding|no_debug_ranges|frozen_modules=(on|off))$/
/** Python modules that are entry points with a model, run as `python -m NAME …`. */
export const PYTHON_RUNNERS: Readonly<Record<string, string>> = {
  pytest: 'pytest',
  'py.test': 'pytest',
  pip: 'pip',
  pip3: 'pip',
  venv: 'python -m venv',
  unittest: 'python -m unittest',
  mypy: 'mypy',
  black: 'black',
  ruff: 'ruff',
  isort: 'isort',
  flake8: 'flake8',
  'json.tool': 'python -m json.tool',
}
