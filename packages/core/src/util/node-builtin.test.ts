import { loadNodeBuiltin, nodeBuiltin } from '@plan/shell/common'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { checkPathOnDisk } from '../checks/path-on-disk.js'

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('nodeBuiltin', () => {
  it('should return the built-in module on Node.js', async () => {
    expect(nodeBuiltin<{ sep: string }>('node:path')?.sep).toBe('/')
    expect((await loadNodeBuiltin<{ sep: string }>('node:path'))?.sep).toBe('/')
  })

  it('should be undefined on a runtime without Node.js built-ins', async () => {
    vi.stubGlobal('process', undefined)
    expect(nodeBuiltin('node:fs/promises')).toBeUndefined()
    expect(await loadNodeBuiltin('node:fs/promises')).toBeUndefined()
  })
})

describe('checkPathOnDisk', () => {
  it('should deny, not guess, when the runtime has no file system', async () => {
    vi.stubGlobal('process', undefined)
    const scope = { roots: ['/srv/repo'], readOnly: [], deny: [] }
    const result = await checkPathOnDisk('notes.md', scope, 'read')
    expect(result).toMatchObject({ allowed: false, issue: { code: 'path_not_allowed' } })
  })
})
