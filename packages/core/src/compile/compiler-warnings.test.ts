import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from './create-plan-compiler.js'

describe('createPlanCompiler (warnings)', () => {
  it('should name allowed programs the command checker has no model of', async () => {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: { run: { args: { command: { type: 'command' } } } },
      commands: { allow: ['git', 'terraform'] },
    })
    expect(compiler.warnings).toHaveLength(1)
    expect(compiler.warnings[0]).toMatchObject({ code: 'command_unmodelled_program' })
    expect(compiler.warnings[0]?.message).toContain('"terraform"')
  })

  it('should have no warnings when every allowed program is modelled', async () => {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: {},
      commands: { allow: ['git', 'cat', 'grep'] },
    })
    expect(compiler.warnings).toEqual([])
  })

  it('should warn about each deny path the workspace repository tracks or has committed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'plan-tracked-deny-'))
    try {
      const git = (...args: string[]) =>
        spawnSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args])
      git('init', '-q')
      writeFileSync(join(root, '.env'), 'KEY=1\n')
      writeFileSync(join(root, 'staged.pem'), 'k')
      writeFileSync(join(root, 'local.key'), 'k')
      git('add', '.env')
      git('commit', '-qm', 'first')
      git('rm', '-q', '--cached', '.env')
      git('commit', '-qm', 'untrack')
      git('add', 'staged.pem')
      const compiler = await createPlanCompiler({
        version: 1,
        workspace: { roots: [root], deny: ['.env', 'staged.pem', 'local.key', 'missing'] },
        tools: {},
      })
      expect(compiler.warnings.map((warning) => [warning.code, warning.path.join('.')])).toEqual([
        ['policy_deny_path_tracked', 'workspace.deny.0'],
        ['policy_deny_path_tracked', 'workspace.deny.1'],
      ])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('should not warn about deny paths outside a repository', async () => {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/no-repository'], deny: ['.env'] },
      tools: {},
    })
    expect(compiler.warnings).toEqual([])
  })
})
