import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { resolvePolicy } from './resolve-policy.js'

const policy = {
  version: 1 as const,
  workspace: { roots: ['/srv/repo'], readOnly: ['Makefile'] },
  tools: { write_file: { args: { path: { type: 'path' as const, access: 'write' as const } } } },
}

describe('a read-only build file in a resolved policy', () => {
  it('should make what its tool reads in its place read-only too', () => {
    expect(resolvePolicy(policy).scope.readOnly).toEqual([
      '/srv/repo/Makefile',
      '/srv/repo/GNUmakefile',
      '/srv/repo/makefile',
    ])
  })

  it('should refuse a tool that writes a stand-in, and allow its neighbours', async () => {
    const compiler = await createPlanCompiler(policy)
    const codes = (path: string) =>
      compiler.checkArguments('write_file', { path }).map((issue) => issue.code)
    expect(codes('GNUmakefile')).toEqual(['path_not_allowed'])
    expect(codes('makefile')).toEqual(['path_not_allowed'])
    expect(codes('Makefile.bak')).toEqual([])
    expect(codes('sub/GNUmakefile')).toEqual([])
  })
})
