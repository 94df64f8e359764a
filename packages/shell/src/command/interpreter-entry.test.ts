import { beforeAll, describe, expect, it } from 'vitest'
import type { PathScope } from '../types/path-scope.js'
import { type CommandChecker, createCommandChecker } from './create-command-checker.js'

const scope: PathScope = {
  roots: ['/srv/repo'],
  readOnly: ['/srv/repo/.git'],
  deny: ['/srv/repo/.env'],
}

describe('interpreters allowed without a rule', () => {
  let checker: CommandChecker
  beforeAll(async () => {
    checker = await createCommandChecker({
      policy: {
        allow: ['node', 'python', 'python3', 'npx', 'pnpm', 'npm', 'tsc', 'vitest'],
        maxLength: 8192,
      },
      scope,
    })
  })
  const verdict = (command: string) => {
    const result = checker.check(command)
    return { command, verdict: result.allowed ? 'allow' : result.issue.code }
  }

  it('should run a script file of the workspace, with its own arguments checked', () => {
    for (const command of [
      'node scripts/build.mjs',
      'node ./scripts/check.mjs --fix',
      'node --enable-source-maps dist/cli.js serve',
      'node --max-old-space-size=4096 scripts/big.mjs',
      '/usr/local/bin/node script.js',
      'python3 scripts/gen.py --out build/gen.json',
      'python -u manage.py test',
      'python3 -B -W ignore::DeprecationWarning tools/lint.py src',
      'python3 -X dev main.py',
      'node --version',
      'python3 --version',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'allow' })
  })

  it('should refuse inline code, stdin, loaders and options with no known role', () => {
    for (const command of [
      'node -e 1',
      'node --eval=1',
      'node -p process.env',
      'node -r ./hook.cjs scripts/build.mjs',
      'node --require=./hook.cjs scripts/build.mjs',
      'node --import ./hook.mjs scripts/build.mjs',
      'node --loader ./l.mjs a.js',
      'node --experimental-loader=./l.mjs a.js',
      'node --env-file=.env scripts/build.mjs',
      'node --env-file-if-exists=x.env a.js',
      'node --openssl-config=evil.cnf a.js',
      'node --inspect=0.0.0.0:9229 a.js',
      'node --experimental-config-file=node.config.json a.js',
      'node --run build',
      'node -i',
      'node',
      'node -',
      'python3 -c "import os"',
      'python3 -Bc 1',
      'python3 -i',
      'python3',
      'python3 -',
      'python3 -m http.server',
      'python3 -m timeit "1"',
      'python3 -W ignore::evil.Warning a.py',
      'python3 -W "ignore:m:evil.mod.Warning" a.py',
      'python3 -X pycache_prefix=/tmp a.py',
      'python3 --check-hash-based-pycs always a.py',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'command_inline_code' })
  })

  it('should refuse a script outside the workspace or in a denied path', () => {
    expect(verdict('node /tmp/evil.js').verdict).toBe('command_inline_code')
    expect(verdict('python3 ../other/x.py').verdict).toBe('command_inline_code')
    expect(verdict('node .env').verdict).toBe('command_inline_code')
    expect(verdict('node scripts/build.mjs /etc/passwd').verdict).toBe('path_outside_workspace')
  })

  it('should hand the words after an entry point to the runner model', () => {
    for (const command of [
      'node --test',
      'node --test test/',
      'node --test --test-reporter=spec --test-reporter-destination=out/report.txt',
      'node --test --test-name-pattern="login" test/api.test.mjs',
      'node --test --experimental-test-coverage',
      'python -m pytest -q',
      'python3 -m pytest tests/test_api.py -k "login and not slow"',
      'python3 -m pytest -p no:cacheprovider',
      'python3 -m unittest discover -s tests',
      'python3 -m json.tool package.json',
      'npx tsc --noEmit',
      'pnpm exec vitest run',
      'npm exec -- vitest run',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'allow' })
    for (const command of [
      'node --test --import ./x.mjs',
      'node --test --require ./x.cjs',
      'node --test --test-reporter=./x.mjs',
      'node --test --test-reporter ./reporters/evil.mjs',
      'node --test --env-file=.env',
      'node --test --experimental-loader=./l.mjs',
      'node --test --frobnicate',
      'python3 -m pytest -p evil_plugin',
      'python3 -m pytest -pevil',
      'python3 -m pytest -c /tmp/pytest.ini',
      'npx -p cowsay tsc',
      'npx cowsay',
      'pnpm exec cowsay',
    ])
      expect(verdict(command).verdict, command).not.toBe('allow')
    for (const command of [
      'node --test --test-reporter-destination=/tmp/out.txt',
      'python3 -m pytest --basetemp=/tmp/x',
      'python3 -m pytest --junitxml=/tmp/r.xml',
      'python3 -m pytest --rootdir=/tmp',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'path_outside_workspace' })
  })

  it('should allow node --check of one file, which runs nothing, and nothing more', () => {
    for (const command of ['node --check src/index.js', 'node -c scripts/build.mjs'])
      expect(verdict(command)).toEqual({ command, verdict: 'allow' })
    for (const command of [
      'node --check --require ./hook.cjs a.js',
      'node --check a.js --import ./x.mjs',
      'node --require ./hook.cjs --check a.js',
      'node --check -e 1',
      'node --check',
      'node --check a.js b.js',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'command_inline_code' })
    expect(verdict('node --check /etc/shadow').verdict).toBe('path_outside_workspace')
    expect(verdict('node --check .env').verdict).toBe('path_not_allowed')
  })

  it('should name the policy line that would allow a refused program', () => {
    const result = checker.check('cargo build')
    expect(result.allowed).toBe(false)
    if (!result.allowed) expect(result.issue.hint).toContain('add "cargo" to commands.allow')
    const inline = checker.check('node -e 1')
    if (!inline.allowed) expect(inline.issue.hint).toContain('commands.rules.node.allowExec: true')
  })
})
