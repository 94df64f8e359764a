import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createTestWorkspace, defaultTestFiles } from './test-workspace.js'

describe('createTestWorkspace', () => {
  it('should write the default files into a new folder', () => {
    const workspace = createTestWorkspace()
    expect(readFileSync(join(workspace.root, 'README.md'), 'utf8')).toBe(
      defaultTestFiles['README.md'],
    )
    expect(existsSync(join(workspace.root, 'src', 'index.ts'))).toBe(true)
    workspace.remove()
  })

  it('should write the given files and remove the folder on remove()', () => {
    const workspace = createTestWorkspace({ files: { 'docs/a.md': 'a' } })
    expect(readFileSync(join(workspace.root, 'docs', 'a.md'), 'utf8')).toBe('a')
    expect(existsSync(join(workspace.root, 'README.md'))).toBe(false)
    workspace.remove()
    expect(existsSync(workspace.root)).toBe(false)
  })
})
