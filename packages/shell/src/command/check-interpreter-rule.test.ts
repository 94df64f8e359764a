import { describe, expect, it } from 'vitest'
import { PolicyError } from '../errors/policy-error.js'
import { commandPolicySchema } from '../schema/command-policy.js'
import type { PathScope } from '../types/path-scope.js'
import { createCommandChecker } from './create-command-checker.js'

const scope: PathScope = {
  roots: ['/srv/repo'],
  readOnly: ['/srv/repo/vendor', '/srv/repo/scripts'],
  deny: ['/srv/repo/.env'],
}

async function checkerFor(rules: unknown) {
  return createCommandChecker({
    policy: commandPolicySchema.parse({
      allow: ['python3', 'node', 'npx'],
      rules,
    }),
    scope,
  })
}

describe('checkInterpreterRule', () => {
  it('should allow listed modules and scripts without allowing inline code', async () => {
    const checker = await checkerFor({
      python3: { modules: ['pytest'], scripts: ['scripts/*.py'] },
      node: { scripts: ['scripts/**/*.mjs'], test: true },
      npx: { packages: ['prettier'] },
    })
    const allowed = (command: string) => checker.check(command).allowed
    expect(allowed('python3 -m pytest -q tests')).toBe(true)
    expect(allowed('python3 -B -m pytest')).toBe(true)
    expect(allowed('python3 scripts/release.py --dry-run')).toBe(true)
    expect(allowed('node scripts/tools/gen.mjs')).toBe(true)
    expect(allowed('node --test')).toBe(true)
    expect(allowed('npx prettier --check src')).toBe(true)
    expect(allowed('npx prettier@3.3.0 --check src')).toBe(true)
    expect(allowed('npx prettier@latest --check src')).toBe(true)
    expect(allowed('npx prettier@^3.3 --check src')).toBe(true)
    for (const spec of [
      'prettier@npm:cowsay',
      'prettier@file:evil.tgz',
      'prettier@file:../evil',
      'prettier@github:evil/x',
      'prettier@git+https://example.com/x.git',
      'prettier@https://example.com/x.tgz',
      'prettier@>=3',
      'prettier@3 || 4',
      '@evil/prettier',
      './prettier',
    ])
      expect(allowed(`npx '${spec}' --check src`), spec).toBe(false)
    for (const command of [
      'python3 -c "import os"',
      'python3 -m http.server',
      'python3 -i',
      'python3',
      'python3 src/evil.py',
      'python3 scripts/../src/evil.py',
      'python3 -X importtime -m pytest',
      'node -e 1',
      'node --require ./x.js --test',
      'node src/x.mjs',
      'npx cowsay',
      'npx -p cowsay prettier',
    ])
      expect({ command, allowed: allowed(command) }).toEqual({ command, allowed: false })
  })

  it('should refuse a policy whose scripts an agent could write', async () => {
    await expect(checkerFor({ python3: { scripts: ['src/*.py'] } })).rejects.toThrow(PolicyError)
    await expect(checkerFor({ python3: { scripts: ['*.py'] } })).rejects.toThrow(PolicyError)
    await expect(checkerFor({ python3: { scripts: ['scripts/../src/*.py'] } })).rejects.toThrow(
      PolicyError,
    )
  })
})

describe('createCommandChecker (warnings)', () => {
  it('should name every allowed program it has no model of', async () => {
    const checker = await createCommandChecker({
      policy: commandPolicySchema.parse({ allow: ['git', 'frobnicate', 'cat'] }),
      scope,
    })
    expect(checker.warnings.map((warning) => warning.code)).toEqual(['command_unmodelled_program'])
    expect(checker.warnings[0]?.message).toContain('"frobnicate"')
  })
})

describe('checkUnmodelledProgram', () => {
  it('should refuse a shell or interpreter named as an argument of a program without a model', async () => {
    const checker = await createCommandChecker({
      policy: commandPolicySchema.parse({ allow: ['aa-exec', 'openvpn', 'frob'] }),
      scope,
    })
    expect(checker.check('aa-exec sh').allowed).toBe(false)
    expect(checker.check("openvpn --up 'sh -s'").allowed).toBe(false)
    expect(checker.check('frob --shell=/bin/bash').allowed).toBe(false)
    expect(checker.check('frob src/command notes.txt').allowed).toBe(true)
    expect(checker.check('frob -p . src').allowed).toBe(true)
  })
})
