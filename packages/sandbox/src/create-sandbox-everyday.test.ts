import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { PolicyInput } from '@plan/core'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createSandbox } from './create-sandbox.js'
import {
  createSandboxFixture,
  describeSandbox,
  gitIdentity,
  initRepository,
  type SandboxFixture,
} from './test-utils/sandbox-fixture.js'

const TIMEOUT = 120_000
const RUN = { timeoutMs: 60_000, env: gitIdentity() }

/** A Python with pytest on this machine (its prefix, to read), or the system Python without. */
function findPython(): { program: string; prefix?: string; pytest: boolean } {
  try {
    const found = execFileSync(
      'python3',
      ['-c', 'import pytest, sys; print(sys.executable); print(sys.prefix)'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    )
    const [program = '', prefix = ''] = found.trim().split('\n')
    return { program, prefix, pytest: true }
  } catch {
    return { program: '/usr/bin/python3', pytest: false }
  }
}

describeSandbox('createSandbox everyday work', () => {
  let fixture: SandboxFixture

  beforeEach(async () => {
    fixture = await createSandboxFixture()
    initRepository(fixture.root)
    await writeFile(
      join(fixture.root, 'package.json'),
      JSON.stringify({ name: 'demo', private: true, scripts: { test: 'node test.js' } }),
    )
    await writeFile(join(fixture.root, 'test.js'), "require('node:assert').equal(1 + 1, 2)\n")
    await writeFile(
      join(fixture.root, 'test_math.py'),
      'import unittest\n\nclass MathTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n',
    )
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  it(
    'should run npm test, pytest, git status and git commit, and read and write files',
    async () => {
      const python = findPython()
      const node = process.execPath
      const policy: PolicyInput = {
        version: 1,
        workspace: { roots: [fixture.root], deny: ['.env'] },
        tools: {},
        ...(python.prefix === undefined ? {} : { sandbox: { read: [python.prefix] } }),
      }
      const sandbox = createSandbox(policy, {
        hostHome: fixture.home,
        path: [dirname(node), dirname(python.program), '/usr/bin', '/bin'].join(':'),
      })
      const tests = python.pytest
        ? [python.program, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'test_math.py']
        : [python.program, '-m', 'unittest', '-q', 'test_math']
      const steps = [
        ['npm', 'test', '--silent'],
        tests,
        ['sh', '-c', 'cat a.txt && echo changed >> a.txt && echo new > notes.md'],
        ['git', 'status', '--short'],
        ['git', 'add', 'a.txt', 'notes.md', 'package.json', 'test.js', 'test_math.py'],
        ['git', 'commit', '-q', '-m', 'everyday'],
      ]
      for (const argv of steps) {
        const result = await sandbox.run(argv, RUN)
        expect([argv.join(' '), result.exitCode, result.violations]).toEqual([
          argv.join(' '),
          0,
          [],
        ])
      }
      expect(await readFile(join(fixture.root, 'notes.md'), 'utf8')).toBe('new\n')
      const log = execFileSync('git', ['log', '--format=%s'], {
        cwd: fixture.root,
        encoding: 'utf8',
      })
      expect(log).toBe('everyday\nfirst\n')
    },
    TIMEOUT,
  )

  it(
    'should let git commit with the whole .git listed as readOnly, and keep its code parts read-only',
    async () => {
      const policy: PolicyInput = {
        version: 1,
        workspace: { roots: [fixture.root], readOnly: ['.git'], deny: ['.env'] },
        tools: {},
      }
      const sandbox = createSandbox(policy, { hostHome: fixture.home })
      const config = await readFile(join(fixture.root, '.git/config'), 'utf8')
      for (const argv of [
        ['git', 'add', 'package.json', 'test.js'],
        ['git', 'commit', '-q', '-m', 'with .git read-only'],
        ['git', 'checkout', '-q', '-b', 'feature/x'],
        ['git', 'tag', 'v0.0.1'],
      ]) {
        const result = await sandbox.run(argv, RUN)
        expect([argv.join(' '), result.exitCode, result.violations]).toEqual([
          argv.join(' '),
          0,
          [],
        ])
      }
      const hostile = await sandbox.run(
        [
          'sh',
          '-c',
          'git config core.fsmonitor "touch pwned"; echo "touch pwned" > .git/hooks/pre-commit; true',
        ],
        RUN,
      )
      expect(hostile.exitCode).toBe(0)
      expect(await readFile(join(fixture.root, '.git/config'), 'utf8')).toBe(config)
      expect(existsSync(join(fixture.root, '.git/hooks/pre-commit'))).toBe(false)
      expect(existsSync(join(fixture.root, 'pwned'))).toBe(false)
      const log = execFileSync('git', ['log', '--format=%s', 'feature/x'], {
        cwd: fixture.root,
        encoding: 'utf8',
      })
      expect(log).toBe('with .git read-only\nfirst\n')
    },
    TIMEOUT,
  )
})
