import type { ProgramFamily } from './program-family.js'

// pytest `-o KEY=VALUE` settings that load nothing; addopts, pythonpath, filterwarnings and
// plugin settings can.
const PYTEST_SAFE_INI =
  /^(cache_dir|python_files|python_classes|python_functions|testpaths|markers|console_output_style|log_cli|log_cli_level|log_level|log_format|log_date_format|junit_family|junit_suite_name|xfail_strict|norecursedirs|minversion|empty_parameter_set_mark|asyncio_mode|asyncio_default_fixture_loop_scope|timeout|verbosity_assertions|verbosity_test_cases)=/

/** python, pytest and uv. */
export const PYTHON_FAMILY: ProgramFamily = {
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
  valueOptions: {
    pytest: [
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
    ],
  },
}
