import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { modelStepToolPolicy } from '../extract/model-step-policy.js'
import type { PolicyInput } from '../schema/policy-schema.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuard, PlanGuardState } from '../types/plan-guard.js'
import {
  createTestCompiler,
  createTestWorkspace,
  type TestWorkspace,
  testTools,
} from './__fixtures__/test-workspace.js'
import { createPlanGuard } from './create-plan-guard.js'

const TAINTED = {
  commands: ['npm test', 'npm run', 'npm --version', 'ls', 'git status'],
  writes: ['src/**', 'test/**', 'docs/**', 'scripts/**', 'NOTES.md'],
  hosts: ['docs.example.com'],
}

function policy(tainted: boolean): Partial<PolicyInput> {
  return {
    tools: {
      ...testTools,
      fetch_url: { args: { url: { type: 'string', format: 'url' } } },
      list_files: { args: { dir: { type: 'path', access: 'read' } } },
      ...modelStepToolPolicy(),
    },
    commands: { allow: ['npm', 'node', 'python3', 'ls', 'git', 'cat'] },
    trust: { defaultOutput: 'untrusted', ...(tainted ? { tainted: TAINTED } : {}) },
  }
}

interface Call {
  readonly tool: string
  readonly args: Record<string, unknown>
  readonly output?: unknown
  /** A human approved the call (`humanApproved`) after reading it. */
  readonly approved?: boolean
}

/** Plays one per-turn call: a plan of one step, authorized and completed; the refusal codes. */
async function turn(guard: PlanGuard, call: Call, index: number): Promise<string[]> {
  const id = `c${index}`
  guard.submitPlan([{ id, tool: call.tool, args: call.args }], 'turn')
  const approved = call.approved === true ? { humanApproved: true } : {}
  const result = await guard.authorize({
    tool: call.tool,
    args: call.args,
    callId: id,
    ...approved,
  })
  if (!result.allowed) return result.issues.map((issue) => issue.code)
  guard.complete(result.stepId, call.output ?? 'ok')
  return []
}

async function playTurns(guard: PlanGuard, calls: readonly Call[]): Promise<string[][]> {
  const codes: string[][] = []
  for (const [index, call] of calls.entries()) codes.push(await turn(guard, call, index))
  return codes
}

const view = (file: string, output = 'text'): Call => ({
  tool: 'view_file',
  args: { file },
  output: { content: output },
})
const write = (file: string): Call => ({
  tool: 'write_file',
  args: { file, content: "import { test } from 'node:test'\n" },
})
const run = (command: string): Call => ({
  tool: 'run_command',
  args: { command },
  output: { stdout: 'ok' },
})
const fetchPage = (url: string): Call => ({ tool: 'fetch_url', args: { url }, output: 'page' })
/** The call as a human approved it after reading it. */
const approvedBy = (call: Call): Call => ({ ...call, approved: true })

function saved(guard: PlanGuard): PlanGuardState {
  return JSON.parse(JSON.stringify(guard.snapshot())) as PlanGuardState
}

describe('labelled files (write, then run)', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
    compiler = await createTestCompiler(workspace.root, policy(true))
  })

  afterEach(async () => {
    await workspace.remove()
  })

  const attacks: [string, Call, Call, Call][] = [
    [
      'a test file after reading README',
      view('README.md'),
      write('test/x.test.js'),
      run('npm test'),
    ],
    ['a test under docs/', view('README.md'), write('docs/test-a.js'), run('npm test')],
    [
      'a package script after a page',
      fetchPage('https://docs.example.com/a'),
      write('scripts/lint.js'),
      run('npm run lint'),
    ],
    [
      'a config file after a page',
      fetchPage('https://docs.example.com/a'),
      write('test/setup.json'),
      run('npm test'),
    ],
    [
      'a git hook after git log output',
      run('git log -1'),
      write('src/.git/hooks/pre-commit'),
      run('git status'),
    ],
  ]
  for (const [name, read, written, command] of attacks) {
    it(`should refuse to write, and after an approved write to run, ${name}`, async () => {
      const guard = createPlanGuard(undefined, { compiler, checkPathsOnDisk: false })
      // The code written is itself a sink of the tainted run; a reviewer may allow it once.
      const codes = await playTurns(guard, [read, written, approvedBy(written), command])
      expect(codes).toEqual([[], ['tainted_run'], [], ['untrusted_flow']])
    })
  }

  it('should not let a human allow a run of data the call does not show', async () => {
    const guard = createPlanGuard(undefined, { compiler, checkPathsOnDisk: false })
    await playTurns(guard, [view('README.md'), approvedBy(write('test/x.test.js'))])
    guard.submitPlan([{ id: 'r', tool: 'run_command', args: { command: 'npm test' } }], 'turn')
    const denied = await guard.authorize({
      tool: 'run_command',
      args: { command: 'npm test' },
      callId: 'r',
    })
    expect(denied.allowed ? '' : denied.issue.message).toContain(
      'test/x.test.js (from file:README.md)',
    )
    const approved = await guard.authorize({
      tool: 'run_command',
      args: { command: 'npm test' },
      callId: 'r',
      humanApproved: true,
    })
    expect(approved.allowed ? [] : approved.issues.map((issue) => issue.code)).toEqual([
      'untrusted_flow',
    ])
  })

  const everyday: [string, readonly Call[]][] = [
    [
      'an edit-test loop on test output',
      [
        run('npm test'),
        write('src/math.js'),
        run('npm test'),
        write('src/math.js'),
        run('npm test'),
      ],
    ],
    [
      'a new test from the source it tests',
      [view('src/math.js'), write('test/zero.test.js'), run('npm test')],
    ],
    ['notes from README, then the tests', [view('README.md'), write('NOTES.md'), run('npm test')]],
    [
      'a page read after the write',
      [write('src/a.js'), fetchPage('https://docs.example.com/a'), run('npm test')],
    ],
    [
      'a listing, then a test',
      [{ tool: 'list_files', args: { dir: 'src' } }, write('test/a.test.js'), run('npm test')],
    ],
    [
      'a command that runs nothing',
      [view('README.md'), approvedBy(write('test/x.test.js')), run('ls test')],
    ],
    [
      'a version query',
      [view('README.md'), approvedBy(write('test/x.test.js')), run('npm --version')],
    ],
  ]
  for (const [name, calls] of everyday) {
    it(`should allow ${name}`, async () => {
      const guard = createPlanGuard(undefined, { compiler, checkPathsOnDisk: false })
      const codes = await playTurns(guard, calls)
      expect(codes).toEqual(calls.map(() => []))
    })
  }

  it('should refuse a command that runs a file written in the same turn', async () => {
    const guard = createPlanGuard(undefined, { compiler, checkPathsOnDisk: false })
    await playTurns(guard, [view('README.md')])
    const calls = [
      { id: 'w', tool: 'write_file', args: write('test/x.test.js').args },
      { id: 'r', tool: 'run_command', args: { command: 'npm test' } },
    ]
    guard.submitPlan(calls, 'turn')
    const run = await guard.authorize({
      tool: 'run_command',
      args: { command: 'npm test' },
      callId: 'r',
    })
    expect(run.allowed ? [] : run.issues.map((issue) => issue.code)).toEqual(['untrusted_flow'])
  })

  it('should name where the untrusted output came from in a tainted-run refusal', async () => {
    const guard = createPlanGuard(undefined, { compiler, checkPathsOnDisk: false })
    await playTurns(guard, [view('README.md'), fetchPage('https://docs.example.com/a')])
    const args = write('CONTRIBUTING.md').args
    guard.submitPlan([{ id: 'p', tool: 'write_file', args }], 'turn')
    const result = await guard.authorize({ tool: 'write_file', args, callId: 'p' })
    expect(result.allowed ? '' : result.issue.message).toContain(
      'Untrusted output (from file:README.md, url:docs.example.com)',
    )
  })

  it('should keep a label through the saved state', async () => {
    const first = createPlanGuard(undefined, { compiler, checkPathsOnDisk: false })
    await playTurns(first, [view('README.md'), write('test/x.test.js')])
    expect(saved(first).flow).toMatchObject({ files: { 'test/x.test.js': ['file:README.md'] } })
    const second = createPlanGuard(undefined, {
      compiler,
      state: saved(first),
      checkPathsOnDisk: false,
    })
    expect(await turn(second, run('npm test'), 7)).toEqual(['untrusted_flow'])
  })

  it('should label the real path a link leads to', async () => {
    const { mkdir, symlink } = await import('node:fs/promises')
    const { join } = await import('node:path')
    await mkdir(join(workspace.root, 'test'))
    await symlink(join(workspace.root, 'test/x.test.js'), join(workspace.root, 'NOTES.md'))
    const guard = createPlanGuard(undefined, { compiler })
    const codes = await playTurns(guard, [
      fetchPage('https://docs.example.com/a'),
      write('NOTES.md'),
      run('npm test'),
    ])
    expect(codes[2]).toEqual(['untrusted_flow'])
  })
})

describe('labelled files in plan mode', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
    compiler = await createTestCompiler(workspace.root, policy(false))
  })

  afterEach(async () => {
    await workspace.remove()
  })

  /** Runs a plan step by step, each step with its output; the codes of the first refusal. */
  async function runPlan(
    steps: readonly { id: string; tool: string; args: Record<string, unknown>; output?: unknown }[],
  ): Promise<string[]> {
    const plan = steps.map(({ id, tool, args }, index) => ({
      id,
      tool,
      args,
      ...(index > 0 ? { depends_on: [steps[index - 1]?.id as string] } : {}),
    }))
    const validated = compiler.validate(plan)
    if (!validated.success) return validated.issues.map((issue) => `plan: ${issue.code}`)
    const guard = createPlanGuard(validated.plan, { compiler, checkPathsOnDisk: false })
    for (const step of steps) {
      const resolved = guard.resolveArgs(step.id)
      if (!resolved.success) return ['unresolved']
      const result = await guard.authorize({
        tool: step.tool,
        args: resolved.args,
        stepId: step.id,
      })
      if (!result.allowed) return result.issues.map((issue) => issue.code)
      guard.complete(step.id, step.output ?? 'ok')
    }
    return []
  }

  it('should refuse a plan that runs a test generated from a page before it runs', async () => {
    const codes = await runPlan([
      {
        id: 'page',
        tool: 'fetch_url',
        args: { url: 'https://docs.example.com/a' },
        output: 'page',
      },
      {
        id: 'gen',
        tool: 'generate',
        args: { input: { $ref: 'page' }, instruction: 'A test.' },
        output: 'code',
      },
      {
        id: 'write',
        tool: 'write_file',
        args: { file: 'test/gen.test.js', content: { $ref: 'gen' } },
      },
      { id: 'run', tool: 'run_command', args: { command: 'npm test' } },
    ])
    expect(codes).toEqual(['plan: untrusted_flow'])
  })

  it('should allow running a fix generated from test output and the source', async () => {
    const codes = await runPlan([
      { id: 't', tool: 'run_command', args: { command: 'npm test' }, output: { stdout: 'fail' } },
      { id: 'src', tool: 'view_file', args: { file: 'src/math.js' }, output: { content: 'x' } },
      {
        id: 'gen',
        tool: 'generate',
        args: { input: [{ $ref: 't' }, { $ref: 'src' }], instruction: 'Fix.' },
        output: 'code',
      },
      { id: 'write', tool: 'write_file', args: { file: 'src/math.js', content: { $ref: 'gen' } } },
      { id: 'again', tool: 'run_command', args: { command: 'npm test' } },
    ])
    expect(codes).toEqual([])
  })
})

describe('maxQuestions', () => {
  let workspace: TestWorkspace

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
  })

  afterEach(async () => {
    await workspace.remove()
  })

  it('should stop the run instead of putting more refusals to a human than the limit', async () => {
    const compiler = await createTestCompiler(workspace.root, {
      ...policy(false),
      trust: {
        defaultOutput: 'untrusted',
        tainted: { ...TAINTED, onRefuse: 'ask', maxQuestions: 2 },
      },
    })
    const guard = createPlanGuard(undefined, { compiler, checkPathsOnDisk: false })
    await playTurns(guard, [view('README.md')])
    const codes: string[][] = []
    for (const index of [1, 2, 3]) {
      const args = write(`CONTRIBUTING-${index}.md`).args
      guard.submitPlan([{ id: `q${index}`, tool: 'write_file', args }], 'turn')
      const result = await guard.authorize({
        tool: 'write_file',
        args,
        callId: `q${index}`,
        asksHuman: true,
      })
      codes.push(result.allowed ? [] : result.issues.map((issue) => issue.code))
    }
    expect(codes).toEqual([['tainted_run'], ['tainted_run'], ['tainted_run', 'budget_exhausted']])
    expect(await turn(guard, view('src/a.js'), 9)).toEqual(['budget_exhausted'])
    expect(saved(guard).flow).toMatchObject({ questions: 3 })
  })
})
