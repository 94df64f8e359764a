import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createPlanCompiler } from '@plan/core'
import { createTestWorkspace, type TestWorkspace } from '@plan/core/test'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createReferenceTools } from './create-reference-tools.js'
import { referenceToolPolicy } from './reference-tool-policy.js'
import { readWorkspaceFiles, writtenFiles } from './workspace-writes.js'

const context = () => ({ signal: new AbortController().signal, stepId: 'test' })

describe('writtenFiles', () => {
  let workspace: TestWorkspace

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
    await mkdir(join(workspace.root, 'src'))
    await mkdir(join(workspace.root, '.git', 'hooks'), { recursive: true })
    await mkdir(join(workspace.root, '.git', 'objects'), { recursive: true })
    await mkdir(join(workspace.root, 'node_modules', 'x'), { recursive: true })
    await writeFile(join(workspace.root, 'src', 'a.js'), 'a')
    await writeFile(join(workspace.root, 'src', 'b.js'), 'b')
  })

  afterEach(async () => {
    await workspace.remove()
  })

  it('should list new and changed files, hooks included, and nothing unchanged', async () => {
    const before = await readWorkspaceFiles(workspace.root)
    await writeFile(join(workspace.root, 'src', 'a.js'), 'changed')
    await writeFile(join(workspace.root, 'src', 'c.test.js'), 'new')
    await writeFile(join(workspace.root, '.git', 'hooks', 'pre-commit'), 'hook')
    await writeFile(join(workspace.root, '.git', 'objects', 'ab'), 'store')
    await writeFile(join(workspace.root, 'node_modules', 'x', 'index.js'), 'package')
    const after = await readWorkspaceFiles(workspace.root)
    expect(writtenFiles(before, after).sort()).toEqual([
      '.git/hooks/pre-commit',
      'src/a.js',
      'src/c.test.js',
    ])
  })

  it('should answer ** when the workspace is larger than the walk may read', async () => {
    const before = await readWorkspaceFiles(workspace.root, 2)
    expect(writtenFiles(before, await readWorkspaceFiles(workspace.root))).toEqual(['**'])
  })

  it('should be reported by run_command for what the command wrote, and left out otherwise', async () => {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: [workspace.root] },
      tools: referenceToolPolicy(),
      commands: { allow: ['cp', 'ls'] },
    })
    const { tools } = createReferenceTools(compiler, { runCommand: { sandbox: 'none' } })
    expect(
      await tools.run_command({ command: 'cp src/a.js src/d.test.js' }, context()),
    ).toMatchObject({ exitCode: 0, writtenFiles: ['src/d.test.js'] })
    expect(await tools.run_command({ command: 'ls src' }, context())).not.toHaveProperty(
      'writtenFiles',
    )
  })
})
