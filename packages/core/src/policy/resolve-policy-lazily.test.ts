import { PolicyError } from '@plan/shell/common'
import { describe, expect, it } from 'vitest'
import { resolvePolicy } from './resolve-policy.js'
import { resolvePolicyLazily } from './resolve-policy-lazily.js'

const policy = {
  version: 1,
  workspace: { roots: ['repo'], deny: ['.env'] },
  tools: { view_file: { args: { file: { type: 'path' } } } },
}

describe('resolvePolicyLazily', () => {
  it('should resolve a valid policy exactly as resolvePolicy does', async () => {
    const options = { baseDir: '/srv' }
    expect(await resolvePolicyLazily(policy, options)).toEqual(resolvePolicy(policy, options))
  })

  it('should report the schema issues of an invalid policy', async () => {
    const invalid = { ...policy, version: 2, budgets: { maxSteps: 0 } }
    const error = await resolvePolicyLazily(invalid).catch((caught: unknown) => caught)
    expect(PolicyError.isInstance(error)).toBe(true)
    const paths = (error as PolicyError).issues.map((issue) => issue.path.join('.'))
    expect(paths).toEqual(expect.arrayContaining(['version', 'budgets.maxSteps']))
  })

  it.each([
    ['workspace', { version: 1, tools: {} }],
    ['version', { workspace: { roots: ['repo'] }, tools: {} }],
    ['tools', { version: 1, workspace: { roots: ['repo'] } }],
  ])(
    'should refuse a policy without %s with the schema issue, not a crash',
    async (field, input) => {
      const error = await resolvePolicyLazily(input).catch((caught: unknown) => caught)
      expect(PolicyError.isInstance(error)).toBe(true)
      expect((error as PolicyError).issues.map((issue) => issue.path.join('.'))).toContain(field)
    },
  )

  it('should still refuse what only resolution checks, such as a path in commands.allow', async () => {
    const withPath = { ...policy, commands: { allow: ['/bin/sh'] } }
    await expect(resolvePolicyLazily(withPath)).rejects.toThrow(/programs are allowed by bare name/)
  })

  it('should return a resolved policy unchanged', async () => {
    const resolved = resolvePolicy(policy)
    expect(await resolvePolicyLazily(resolved)).toBe(resolved)
  })
})
