import { lstat, readdir, readFile, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkPathOnDisk } from '../checks/path-on-disk.js'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { createTestWorkspace } from './create-test-workspace.js'
import { testPolicy } from './test-policy.js'

describe('createTestWorkspace', () => {
  it('should write the default files and a link that leads outside', async () => {
    await using workspace = await createTestWorkspace()
    expect(await readFile(join(workspace.root, 'README.md'), 'utf8')).toBe('# Demo\n')
    expect(await readFile(join(workspace.root, 'escape', 'secret.txt'), 'utf8')).toBe('secret\n')
    expect(await realpath(workspace.root)).toBe(workspace.root)
  })

  it('should write the files it is given and nothing else', async () => {
    await using workspace = await createTestWorkspace({ files: { 'a/b.txt': 'b' } })
    expect(await readFile(join(workspace.root, 'a', 'b.txt'), 'utf8')).toBe('b')
    expect(await readdir(workspace.root)).toEqual(['a'])
    expect(await readdir(workspace.outside)).toEqual([])
  })

  it('should remove the workspace and the folder beside it', async () => {
    const workspace = await createTestWorkspace()
    await workspace.remove()
    await expect(lstat(workspace.root)).rejects.toMatchObject({ code: 'ENOENT' })
    await expect(lstat(workspace.outside)).rejects.toMatchObject({ code: 'ENOENT' })
  })
})

describe('testPolicy', () => {
  it('should allow a read inside the workspace and refuse the link that leads out', async () => {
    await using workspace = await createTestWorkspace()
    const compiler = await createPlanCompiler(testPolicy(workspace.root))
    const inside = await checkPathOnDisk('README.md', compiler.policy.scope, 'read')
    const escaping = await checkPathOnDisk('escape/secret.txt', compiler.policy.scope, 'read')
    expect(inside).toEqual({ allowed: true, resolved: join(workspace.root, 'README.md') })
    expect(escaping.allowed === false && escaping.issue.code).toBe('path_outside_workspace')
  })

  it('should let extra keys replace the defaults', () => {
    const policy = testPolicy('/srv/repo', { commands: { allow: ['git'] } })
    expect(policy.commands).toEqual({ allow: ['git'] })
    expect(Object.keys(policy.tools ?? {})).toEqual(['view_file', 'write_file', 'run_command'])
  })
})
