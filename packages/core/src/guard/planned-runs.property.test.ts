import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { modelStepToolPolicy } from '../extract/model-step-policy.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import {
  createTestCompiler,
  createTestWorkspace,
  type TestWorkspace,
  testTools,
} from './__fixtures__/test-workspace.js'
import { createPlanGuard } from './create-plan-guard.js'

type Step = { id: string; tool: string; args: Record<string, unknown>; depends_on?: string[] }

const FILES = ['README.md', 'src/a.js', 'test/a.test.js', 'docs/notes.md', 'scripts/x.js']
const COMMANDS = ['npm test', 'node --test', 'npm run lint', 'ls', 'git status']

type StepShape =
  | { kind: 'fetch' }
  | { kind: 'view'; file: string }
  | { kind: 'generate'; from: number }
  | { kind: 'write'; file: string; from: number | undefined }
  | { kind: 'run'; command: string }

/** One step of a generated plan, reading the outputs of the steps before it by index. */
const stepArb: fc.Arbitrary<StepShape> = fc.oneof(
  fc.record({ kind: fc.constant('fetch') }),
  fc.record({ kind: fc.constant('view'), file: fc.constantFrom(...FILES) }),
  fc.record({ kind: fc.constant('generate'), from: fc.nat() }),
  fc.record({
    kind: fc.constant('write'),
    file: fc.constantFrom(...FILES),
    from: fc.option(fc.nat(), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('run'), command: fc.constantFrom(...COMMANDS) }),
)

function toStep(shape: StepShape, index: number): Step {
  const id = `s${index}`
  const earlier = (from: number) => `s${from % index}`
  switch (shape.kind) {
    case 'fetch':
      return { id, tool: 'fetch_url', args: { url: 'https://docs.example.com/a' } }
    case 'view':
      return { id, tool: 'view_file', args: { file: shape.file } }
    case 'generate':
      return index === 0
        ? { id, tool: 'view_file', args: { file: 'src/a.js' } }
        : { id, tool: 'generate', args: { input: { $ref: earlier(shape.from) }, instruction: 'x' } }
    case 'write':
      return {
        id,
        tool: 'write_file',
        args: {
          file: shape.file,
          content:
            shape.from === undefined || index === 0 ? 'literal' : { $ref: earlier(shape.from) },
        },
      }
    default:
      return { id, tool: 'run_command', args: { command: shape.command } }
  }
}

describe('plan-time and run-time write-then-run checks', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler

  beforeAll(async () => {
    workspace = await createTestWorkspace()
    compiler = await createTestCompiler(workspace.root, {
      tools: {
        ...testTools,
        fetch_url: { args: { url: { type: 'string', format: 'url' } } },
        ...modelStepToolPolicy(),
      },
      commands: { allow: ['npm', 'node', 'ls', 'git'] },
      trust: { defaultOutput: 'untrusted' },
    })
  })

  afterAll(async () => {
    await workspace.cleanup()
  })

  it('should never approve a plan whose run the labelled-file check then stops', async () => {
    // Each step after the previous one, or beside it (no dependency): run in plan order.
    const planArb = fc.array(fc.tuple(stepArb, fc.boolean()), { minLength: 1, maxLength: 8 })
    await fc.assert(
      fc.asyncProperty(planArb, async (shapes) => {
        const steps = shapes.map(([shape, chained], index) => ({
          ...toStep(shape, index),
          ...(index > 0 && chained ? { depends_on: [`s${index - 1}`] } : {}),
        }))
        const validated = compiler.validate({ steps })
        if (!validated.success) return
        const guard = createPlanGuard(validated.plan, { compiler, checkPathsOnDisk: false })
        for (const step of steps) {
          const resolved = guard.resolveArgs(step.id)
          expect(resolved.success).toBe(true)
          if (!resolved.success) return
          const result = await guard.authorize({
            tool: step.tool,
            args: resolved.args,
            stepId: step.id,
          })
          const codes = result.allowed ? [] : result.issues.map((issue) => issue.code)
          // Only the data-flow checks are the compiler's to foresee; other refusals end the run.
          expect(codes).not.toContain('untrusted_flow')
          if (!result.allowed) return
          guard.complete(step.id, 'text')
        }
      }),
      { numRuns: 300 },
    )
  })
})
