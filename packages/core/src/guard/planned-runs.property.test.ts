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
  | { kind: 'pick'; within: string; from: number; answer: number }
  | { kind: 'viewPicked'; from: number }
  | { kind: 'writePicked'; from: number; content: number }

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
  fc.record({
    kind: fc.constant('pick'),
    within: fc.constantFrom('src/**', 'src/**/*.js', '**'),
    from: fc.nat(),
    answer: fc.nat(),
  }),
  fc.record({ kind: fc.constant('viewPicked'), from: fc.nat() }),
  fc.record({ kind: fc.constant('writePicked'), from: fc.nat(), content: fc.nat() }),
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
    case 'run':
      return { id, tool: 'run_command', args: { command: shape.command } }
    case 'pick':
      return index === 0
        ? { id, tool: 'fetch_url', args: { url: 'https://docs.example.com/a' } }
        : {
            id,
            tool: 'extract',
            args: {
              input: { $ref: earlier(shape.from) },
              instruction: 'Which file?',
              schema: { type: 'path', within: [shape.within] },
            },
          }
    case 'viewPicked':
      return index === 0
        ? { id, tool: 'view_file', args: { file: 'README.md' } }
        : { id, tool: 'view_file', args: { file: { $ref: earlier(shape.from) } } }
    default:
      return index === 0
        ? { id, tool: 'view_file', args: { file: 'README.md' } }
        : {
            id,
            tool: 'write_file',
            args: {
              file: { $ref: earlier(shape.from) },
              content: { $ref: earlier(shape.content) },
            },
          }
  }
}

/** The paths a `within` glob of the generated plans admits. */
const ADMITS: Record<string, readonly string[]> = {
  'src/**': ['src/a.js', 'src/notes.md'],
  'src/**/*.js': ['src/a.js'],
  '**': ['src/a.js', 'src/notes.md', 'test/a.test.js'],
}

/**
 * What a step answers: an extraction a path its schema admits (one it does not admit is
 * refused at run time by design: the data decides), anything else some text.
 */
function outputOf(shape: StepShape, step: Step): unknown {
  if (shape.kind !== 'pick' || step.tool !== 'extract') return 'text'
  const admitted = ADMITS[shape.within] ?? []
  return admitted[shape.answer % admitted.length]
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
    await workspace.remove()
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
        for (const [index, step] of steps.entries()) {
          const resolved = guard.resolveArgs(step.id)
          // A reference to text where a path goes, or to a failed pick, ends the run.
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
          guard.complete(step.id, outputOf((shapes[index] as [StepShape, boolean])[0], step))
        }
      }),
      { numRuns: 500 },
    )
  })
})
