import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createResolver, firstLinkOnWay, type ResolvingFileSystem } from './resolve-on-disk.js'

/** `node:fs` with a count of the calls the resolution makes. */
function countingFileSystem(): ResolvingFileSystem & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    lstatSync: (path, options) => {
      calls.push(`lstat ${path}`)
      return fs.lstatSync(path, options)
    },
    readlinkSync: (path) => {
      calls.push(`readlink ${path}`)
      return fs.readlinkSync(path, 'utf8')
    },
    realpathSync: {
      native: (path) => {
        calls.push(`realpath ${path}`)
        return fs.realpathSync.native(path)
      },
    },
  }
}

describe('createResolver', () => {
  let base: string
  let root: string
  beforeAll(() => {
    base = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'plan-resolve-')))
    root = join(base, 'repo')
    fs.mkdirSync(join(root, 'src'), { recursive: true })
    fs.mkdirSync(join(base, 'outside'))
    fs.writeFileSync(join(root, 'src', 'a.ts'), '')
    fs.writeFileSync(join(root, 'README.md'), '')
    fs.symlinkSync('../outside', join(root, 'out'))
    fs.symlinkSync('src/a.ts', join(root, 'a-link'))
    fs.symlinkSync('.', join(root, 'alias'))
    fs.symlinkSync('missing.txt', join(root, 'dangling'))
  })
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

  it('should cost one lstat per component below a known root, and none for a folder met before', () => {
    const counting = countingFileSystem()
    const resolve = createResolver(counting, new Map([[root, root]]))
    expect(resolve(`${root}/new.txt`)).toEqual({ ok: true, real: `${root}/new.txt` })
    expect(resolve(`${root}/src/a.ts`)).toEqual({ ok: true, real: `${root}/src/a.ts` })
    expect(resolve(`${root}/src/b.ts`)).toEqual({ ok: true, real: `${root}/src/b.ts` })
    expect(resolve(`${root}/.`)).toEqual({ ok: true, real: root })
    expect(counting.calls).toEqual([
      `lstat ${root}/new.txt`,
      `lstat ${root}/src`,
      `lstat ${root}/src/a.ts`,
      `lstat ${root}/src/b.ts`,
    ])
  })

  it('should follow links as the kernel does, and judge a dangling link by its target', () => {
    const resolve = createResolver(countingFileSystem(), new Map([[root, root]]))
    expect(resolve(`${root}/out/secret.txt`)).toEqual({
      ok: true,
      real: `${base}/outside/secret.txt`,
    })
    expect(resolve(`${root}/a-link`)).toEqual({ ok: true, real: `${root}/src/a.ts` })
    expect(resolve(`${root}/alias/../repo/README.md`)).toEqual({
      ok: true,
      real: `${root}/README.md`,
    })
    expect(resolve(`${root}/src/../README.md`)).toEqual({ ok: true, real: `${root}/README.md` })
    expect(resolve(`${root}/dangling`)).toEqual({ ok: true, real: `${root}/missing.txt` })
    const asFolder = resolve(`${root}/README.md/x`)
    expect(asFolder.ok).toBe(false)
  })

  it('should give the same real paths without seeds, as checkPathOnDisk asks them', () => {
    const seeded = createResolver(countingFileSystem(), new Map([[root, root]]))
    const plain = createResolver(countingFileSystem())
    for (const path of ['out', 'a-link', 'alias/src/a.ts', 'src/new/x.ts', 'dangling', 'alias'])
      expect(plain(`${root}/${path}`), path).toEqual(seeded(`${root}/${path}`))
  })
})

describe('firstLinkOnWay', () => {
  it('should name the first link below the root, not the root itself', () => {
    const base = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'plan-first-link-')))
    try {
      fs.mkdirSync(join(base, 'repo', 'src'), { recursive: true })
      fs.symlinkSync('repo', join(base, 'linked'))
      fs.symlinkSync('src', join(base, 'repo', 'code'))
      const linked = join(base, 'linked')
      expect(firstLinkOnWay(fs, `${linked}/code/a.ts`, linked)).toBe(`${linked}/code`)
      expect(firstLinkOnWay(fs, `${linked}/code/a.ts`)).toBe(linked)
      expect(firstLinkOnWay(fs, `${linked}/src/a.ts`, linked)).toBeUndefined()
    } finally {
      fs.rmSync(base, { recursive: true, force: true })
    }
  })
})
