import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseGitPathspec, pathspecSelects } from './git-pathspec.js'

const FILES = [
  '.env',
  '.envrc',
  'E.NV',
  'a/.env',
  'deep/x/y/.env',
  'src/a.ts',
  'src/.env.local',
  'config/secrets',
  'config/secrets.d/key',
]

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'plan-pathspec-'))
  spawnSync('git', ['-C', root, 'init', '-q'])
  for (const path of FILES) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), 'x')
  }
  spawnSync('git', ['-C', root, 'add', '-f', '.'])
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** The tracked files git itself selects with the pathspec, from the root. */
function gitSelects(spec: string): string[] | undefined {
  const result = spawnSync('git', ['-C', root, 'ls-files', '-z', '--', spec], { encoding: 'utf8' })
  if (result.status !== 0) return undefined
  return result.stdout.split('\0').filter((path) => path !== '')
}

const MAGIC = [
  '',
  ':(glob)',
  ':(icase)',
  ':(glob,icase)',
  ':(literal)',
  ':(top)',
  ':/',
  ':(top,glob)',
]
const SEGMENTS = [
  '*',
  '**',
  '?',
  '.env',
  '.e*',
  '*env',
  'a',
  'deep',
  'x',
  '[.]env',
  '.en?',
  'E*',
  'src',
  'config',
  'secrets*',
]

describe('parseGitPathspec and pathspecSelects against real git', () => {
  it('should select every file git selects, for any magic and pattern', () => {
    const spec = fc
      .tuple(
        fc.constantFrom(...MAGIC),
        fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 4 }),
      )
      .map(([magic, segments]) => `${magic}${segments.join('/')}`)
    fc.assert(
      fc.property(spec, (word) => {
        const selected = gitSelects(word)
        if (selected === undefined) return
        const parsed = parseGitPathspec(word)
        for (const path of selected)
          expect(pathspecSelects(parsed, path), `${word} ${path}`).toBe(true)
      }),
      { numRuns: 300 },
    )
  })

  it('should read ** as any number of folders under glob magic, and * as one name', () => {
    const selects = (word: string, path: string) => pathspecSelects(parseGitPathspec(word), path)
    expect(selects(':(glob)**/.env', '.env')).toBe(true)
    expect(selects(':(glob)**/.env', 'deep/x/y/.env')).toBe(true)
    expect(selects(':(glob)deep/**', 'deep/x/y/.env')).toBe(true)
    expect(selects(':(glob)deep/**/.env', 'deep/x/y/.env')).toBe(true)
    expect(selects(':(glob,icase)**/.ENV', 'a/.env')).toBe(true)
    expect(selects(':(glob)*.ts', 'src/a.ts')).toBe(false)
    expect(selects(':(glob)src/*.ts', 'src/a.ts')).toBe(true)
    expect(selects(':(glob)src/?.ts', 'src/a.ts')).toBe(true)
    expect(selects(':(glob)**/.env', 'src/a.ts')).toBe(false)
    expect(selects(':(glob)src/*', '.env')).toBe(false)
  })
})
