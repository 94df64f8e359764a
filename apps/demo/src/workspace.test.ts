import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createDemoWorkspace, removeDemoWorkspacesSync } from './workspace.js'

describe('removeDemoWorkspacesSync', () => {
  it('should remove every demo folder that is still on disk', async () => {
    const first = await createDemoWorkspace()
    const second = await createDemoWorkspace()
    expect(existsSync(first.root)).toBe(true)
    removeDemoWorkspacesSync()
    expect(existsSync(first.base)).toBe(false)
    expect(existsSync(second.base)).toBe(false)
  })

  it('should forget a folder that was removed already', async () => {
    const workspace = await createDemoWorkspace()
    await workspace.remove()
    expect(existsSync(workspace.base)).toBe(false)
    expect(() => removeDemoWorkspacesSync()).not.toThrow()
  })
})
