import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, posix } from 'node:path'
import { isWithin, type PathScope } from '@plan/shell/common'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkPathOnDisk } from './path-on-disk.js'

const FOLDERS = ['', 'a', 'b', 'a/c']
const TARGETS = [
  '.',
  '..',
  '../..',
  'a',
  '../a',
  'f',
  'a/g',
  'missing',
  'missing/../a',
  'l0',
  '../l1',
  'l2/x',
  'a/c/../..',
  '<outside>',
  '<outside>/x',
  '<root>/b',
  '/',
]
const NAMES = ['a', 'b', 'c', 'f', 'g', 'l0', 'l1', 'l2', 'l3', '..', '.', 'missing', 'x']

const links = fc.array(
  fc.record({ folder: fc.constantFrom(...FOLDERS), target: fc.constantFrom(...TARGETS) }),
  { minLength: 1, maxLength: 4 },
)
const paths = fc.array(fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 5 }), {
  minLength: 1,
  maxLength: 12,
})

async function realpathOrCode(path: string): Promise<{ real?: string; code?: string }> {
  try {
    return { real: await realpath(path) }
  } catch (error) {
    return { code: (error as NodeJS.ErrnoException).code ?? 'error' }
  }
}

/** True when the deepest existing folder of `path` is its own real path (no link on the way). */
async function existingPartIsReal(path: string): Promise<boolean> {
  for (let current = path; current !== '/'; current = dirname(current)) {
    const found = await realpathOrCode(current)
    if (found.real !== undefined) return found.real === current
  }
  return true
}

describe('checkPathOnDisk (random symlink graphs)', () => {
  let base: string
  let run = 0
  beforeAll(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'plan-graph-')))
  })
  afterAll(async () => {
    await rm(base, { recursive: true, force: true })
  })

  it('should resolve every path as the kernel does (fs.realpath), and allow only real paths inside the root', async () => {
    await fc.assert(
      fc.asyncProperty(links, paths, async (linkList, pathList) => {
        run += 1
        const root = join(base, `r${run}`, 'ws')
        const outside = join(base, `r${run}`, 'outside')
        for (const folder of FOLDERS) await mkdir(join(root, folder), { recursive: true })
        await mkdir(outside, { recursive: true })
        await writeFile(join(root, 'f'), 'f')
        await writeFile(join(root, 'a', 'g'), 'g')
        for (const [index, link] of linkList.entries()) {
          const target = link.target.replace('<outside>', outside).replace('<root>', root)
          await symlink(target, join(root, link.folder, `l${index}`))
        }
        const scope: PathScope = { roots: [root], readOnly: [], deny: [join(root, 'b')] }
        for (const parts of pathList) {
          const value = parts.join('/')
          const result = await checkPathOnDisk(value, scope)
          // Not join(): it would apply `..` lexically, before the links are followed.
          const kernel = await realpathOrCode(`${root}/${value}`)
          if (kernel.code === 'ELOOP') expect(result.allowed, value).toBe(false)
          const lexical = posix.resolve(root, value)
          const denied = join(root, 'b')
          if (
            kernel.real !== undefined &&
            isWithin(root, kernel.real) &&
            !isWithin(denied, kernel.real) &&
            isWithin(root, lexical) &&
            !isWithin(denied, lexical)
          )
            expect(result.allowed, value).toBe(true)
          if (!result.allowed) continue
          expect(await existingPartIsReal(result.resolved), value).toBe(true)
          expect(isWithin(root, result.resolved), value).toBe(true)
          expect(isWithin(join(root, 'b'), result.resolved), value).toBe(false)
          if (kernel.real !== undefined) expect(result.resolved, value).toBe(kernel.real)
          else expect(['ENOENT', 'ENOTDIR'], value).toContain(kernel.code)
        }
      }),
      { numRuns: 120 },
    )
  }, 120_000)
})
