import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises'
import { join, posix } from 'node:path'
import { isWithin } from '@plan/shell/common'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestWorkspace, type TestWorkspace } from '../guard/__fixtures__/test-workspace.js'
import { createPlanGuard } from '../guard/create-plan-guard.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { createPlanCompiler } from './create-plan-compiler.js'

// Segments a planner (or an attacker) might write, including encodings that decode to `..`.
const SEGMENTS = [
  'src',
  'a.txt',
  'new.txt',
  '.',
  '..',
  '',
  '.git',
  '.env',
  'out-link',
  'dir-link',
  'missing',
  '%2e%2e',
  '%252e%252e',
  '%u002e%u002e',
  '%c0%ae%c0%ae',
  '．．',
  '..%2f..',
  '%20',
  '50%.pdf',
  'ü',
  '\u202e',
  '~',
  'C:',
  '\\..',
]

const pathArb = fc
  .tuple(fc.boolean(), fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 5 }))
  .map(([absolute, parts]) => `${absolute ? '/' : ''}${parts.join('/')}`)
const stepArb = fc.record({
  tool: fc.constantFrom('view_file', 'write_file'),
  file: pathArb,
})

/** The ways a tool, a server or a file system might read the path once more. */
function decodings(value: string): string[] {
  const out = [value, value.normalize('NFKC'), value.replaceAll('\\', '/')]
  try {
    out.push(decodeURIComponent(value), decodeURIComponent(decodeURIComponent(value)))
  } catch {}
  out.push(unescape(value), unescape(unescape(value)))
  return out
}

describe('compiler.validate (approved plans keep their paths inside a root)', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler
  beforeAll(async () => {
    workspace = await createTestWorkspace({ files: {} })
    const { root, outside } = workspace
    await mkdir(join(root, 'src'))
    await mkdir(join(root, '.git'))
    await writeFile(join(root, 'src', 'a.txt'), 'a')
    await writeFile(join(outside, 'a.txt'), 'secret')
    await symlink(outside, join(root, 'out-link'))
    await symlink(join(root, 'src'), join(root, 'dir-link'))
    compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: [root], readOnly: ['.git'], deny: ['.env'] },
      tools: {
        view_file: { args: { file: { type: 'path', access: 'read' } } },
        write_file: { args: { file: { type: 'path', access: 'write' } } },
      },
    })
  })
  afterAll(async () => {
    await workspace.remove()
  })

  it('should approve only paths that stay inside the root, outside deny, however they are decoded', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 6 }), (steps) => {
        const plan = steps.map((step, index) => ({
          id: `s${index}`,
          tool: step.tool,
          args: { file: step.file },
        }))
        const result = compiler.validate(plan)
        if (!result.success) return
        const { root } = workspace
        for (const step of result.plan.steps) {
          const file = step.args.file as string
          for (const variant of decodings(file)) {
            const resolved = posix.resolve(root, variant)
            expect(isWithin(root, resolved), `${file} read as ${variant}`).toBe(true)
            expect(isWithin(join(root, '.env'), resolved), file).toBe(false)
            if (step.tool === 'write_file')
              expect(isWithin(join(root, '.git'), resolved), file).toBe(false)
          }
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('should hand a tool only real paths inside the root when the guard allows a call', async () => {
    const { root } = workspace
    await fc.assert(
      fc.asyncProperty(stepArb, async (step) => {
        const result = compiler.validate([{ id: 's', tool: step.tool, args: { file: step.file } }])
        if (!result.success) return
        const guard = createPlanGuard(result.plan, { compiler })
        const decision = await guard.authorize({ tool: step.tool, args: { file: step.file } })
        if (!decision.allowed) return
        const handed = decision.args.file as string
        expect(isWithin(root, handed), step.file).toBe(true)
        let real: string
        try {
          real = await realpath(handed)
        } catch {
          real = await realpath(posix.dirname(handed)).then(
            (folder) => `${folder}/${posix.basename(handed)}`,
            () => handed,
          )
        }
        expect(isWithin(root, real), `${step.file} -> ${real}`).toBe(true)
      }),
      { numRuns: 500 },
    )
  }, 120_000)
})
