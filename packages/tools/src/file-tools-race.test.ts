import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createPlanCompiler } from '@plan/core'
import { createTestWorkspace, type TestWorkspace } from '@plan/core/test'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createReferenceTools, type ReferenceTools } from './create-reference-tools.js'
import { referenceToolPolicy } from './reference-tool-policy.js'

const ITERATIONS = 2000
const SECRET = 'outside-secret-9d1e'
const context = () => ({ signal: new AbortController().signal, stepId: 'race' })

/**
 * Keeps swapping the real folder `dir` for a link to `outside` and back until killed, holding
 * each state for a fraction of a millisecond so that checks and opens land on both.
 */
const SWAPPER = `
const fs = require('node:fs')
const [root, outside] = process.argv.slice(1)
const at = (name) => root + '/' + name
const attempt = (run) => { try { run() } catch {} }
const pause = new Int32Array(new SharedArrayBuffer(4))
for (;;) {
  attempt(() => fs.renameSync(at('dir'), at('dir-real')))
  attempt(() => fs.symlinkSync(outside, at('dir')))
  Atomics.wait(pause, 0, 0, 0.3)
  attempt(() => fs.unlinkSync(at('dir')))
  // A folder the tools created while dir was missing is dropped.
  if (fs.existsSync(at('dir-real'))) attempt(() => fs.rmSync(at('dir'), { recursive: true, force: true }))
  attempt(() => fs.renameSync(at('dir-real'), at('dir')))
  Atomics.wait(pause, 0, 0, 0.3)
}
`

describe('reference file tools under a swap race', () => {
  let workspace: TestWorkspace
  let reference: ReferenceTools
  let swapper: ChildProcess | undefined

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: [workspace.root] },
      tools: referenceToolPolicy(),
    })
    reference = createReferenceTools(compiler)
    for (const folder of [workspace.root, workspace.outside]) {
      await mkdir(join(folder, 'dir', 'sub'), { recursive: true })
      await mkdir(join(folder, 'sub'), { recursive: true })
    }
    await writeFile(join(workspace.root, 'dir', 'file.txt'), 'inside')
    await writeFile(join(workspace.outside, 'file.txt'), SECRET)
  })

  afterEach(async () => {
    swapper?.kill('SIGKILL')
    await workspace.remove()
  })

  it('should never read, list or write outside while a folder is swapped for a link', async () => {
    swapper = spawn(process.execPath, ['-e', SWAPPER, workspace.root, workspace.outside], {
      stdio: 'ignore',
    })
    const outcomes = { read: 0, wrote: 0, listed: 0, refused: 0 }
    for (let index = 0; index < ITERATIONS; index += 1) {
      const calls = [
        Promise.resolve(reference.tools.view_file({ file: 'dir/file.txt' }, context())).then(
          (output) => {
            expect(JSON.stringify(output)).not.toContain(SECRET)
            outcomes.read += 1
          },
        ),
        Promise.resolve(
          reference.tools.write_file({ file: 'dir/sub/written.txt', content: 'w' }, context()),
        ).then(() => {
          outcomes.wrote += 1
        }),
        Promise.resolve(reference.tools.list_files({ dir: 'dir/sub' }, context())).then(() => {
          outcomes.listed += 1
        }),
      ]
      for (const settled of await Promise.allSettled(calls)) {
        if (settled.status === 'rejected') {
          const reason = settled.reason as Error
          if (reason.name === 'AssertionError') throw reason
          outcomes.refused += 1
        }
      }
    }
    swapper.kill('SIGKILL')
    expect((await readdir(workspace.outside)).sort()).toEqual(['dir', 'file.txt', 'sub'])
    expect(await readdir(join(workspace.outside, 'sub'))).toEqual([])
    expect(await readFile(join(workspace.outside, 'file.txt'), 'utf8')).toBe(SECRET)
    // The race was real: some calls went through and some were refused.
    expect(outcomes.read + outcomes.wrote + outcomes.listed).toBeGreaterThan(0)
    expect(outcomes.refused).toBeGreaterThan(0)
  }, 120_000)
})
