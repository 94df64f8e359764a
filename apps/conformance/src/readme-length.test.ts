import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listWorkspaces, REPOSITORY_ROOT } from './workspace-imports.js'

const MAX_LINES = 300

function lineCount(text: string): number {
  if (text === '') return 0
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
}

function readmes(): string[] {
  const folders = ['.', ...listWorkspaces().map((workspace) => workspace.folder)]
  return folders
    .map((folder) => join(folder, 'README.md'))
    .filter((file) => existsSync(join(REPOSITORY_ROOT, file)))
}

describe('READMEs', () => {
  it('counts the lines an editor shows', () => {
    expect([lineCount('a\nb\n'), lineCount('a\nb'), lineCount('')]).toEqual([2, 2, 0])
  })

  it('finds the root README and one for every public package', () => {
    const found = readmes()
    expect(found).toContain('README.md')
    for (const workspace of listWorkspaces().filter((each) => !each.private)) {
      expect(found).toContain(join(workspace.folder, 'README.md'))
    }
  })

  it(`keeps every README at ${MAX_LINES} lines or fewer`, () => {
    const long = readmes()
      .map((file) => ({
        file,
        lines: lineCount(readFileSync(join(REPOSITORY_ROOT, file), 'utf8')),
      }))
      .filter((each) => each.lines > MAX_LINES)
    expect(long).toEqual([])
  })
})
