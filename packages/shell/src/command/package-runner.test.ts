import { describe, expect, it } from 'vitest'
import { commandPolicySchema } from '../schema/command-policy.js'
import { createCommandChecker } from './create-command-checker.js'
import { packageOfSpec } from './package-runner.js'

describe('packageOfSpec', () => {
  it('should name the registry package of a name, a version, a range of one version or a tag', () => {
    expect(packageOfSpec('create-vite')).toBe('create-vite')
    expect(packageOfSpec('create-vite@latest')).toBe('create-vite')
    expect(packageOfSpec('tsc@5.4.2')).toBe('tsc')
    expect(packageOfSpec('prettier@~3.3')).toBe('prettier')
    expect(packageOfSpec('semver@7.6.0-rc.1+build.5')).toBe('semver')
    expect(packageOfSpec('@biomejs/biome@1.9.4')).toBe('@biomejs/biome')
  })

  it('should name no package for a spec that points at other code', () => {
    for (const spec of [
      'prettier@npm:cowsay',
      'prettier@file:evil.tgz',
      'prettier@github:evil/x',
      'prettier@git+ssh://git@example.com/x.git',
      'prettier@https://example.com/x.tgz',
      'prettier@>=3',
      'prettier@3 - 4',
      'prettier@',
      './prettier',
      '../x.tgz',
      'https://example.com/x.tgz',
      '-y',
    ])
      expect(packageOfSpec(spec), spec).toBeUndefined()
  })
})

describe('a runner of an allowed program', () => {
  it('should check npx NAME@VERSION as the allowed program, and refuse other specs', async () => {
    const checker = await createCommandChecker({
      policy: commandPolicySchema.parse({ allow: ['npx', 'create-vite', 'tsc'] }),
      scope: { roots: ['/srv/app'], readOnly: [], deny: [] },
    })
    for (const command of [
      'npx create-vite@latest my-app --template react-ts',
      'npx create-vite my-app',
      'npx tsc@5.4 --noEmit',
    ])
      expect(checker.check(command).allowed, command).toBe(true)
    for (const command of [
      'npx create-vite@npm:cowsay',
      'npx create-vite@file:evil.tgz',
      'npx cowsay@latest',
      'npx @evil/create-vite@1',
    ])
      expect(checker.check(command).allowed, command).toBe(false)
  })
})
