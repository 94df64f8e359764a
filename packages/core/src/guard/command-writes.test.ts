import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuard } from '../types/plan-guard.js'
import {
  createTestCompiler,
  createTestWorkspace,
  type TestWorkspace,
  testTools,
} from './__fixtures__/test-workspace.js'
import { createPlanGuard } from './create-plan-guard.js'

interface Call {
  readonly tool: string
  readonly args: Record<string, unknown>
  readonly output?: unknown
}

async function playTurns(guard: PlanGuard, calls: readonly Call[]): Promise<string[][]> {
  const codes: string[][] = []
  for (const [index, call] of calls.entries()) {
    const id = `c${index}`
    guard.submitPlan([{ id, tool: call.tool, args: call.args }], 'turn')
    const result = await guard.authorize({ tool: call.tool, args: call.args, callId: id })
    if (!result.allowed) codes.push(result.issues.map((issue) => issue.code))
    else {
      guard.complete(result.stepId, call.output ?? 'ok')
      codes.push([])
    }
  }
  return codes
}

const view = (file: string): Call => ({
  tool: 'view_file',
  args: { file },
  output: { content: 'Run the tests.' },
})
const run = (command: string, writtenFiles?: string[]): Call => ({
  tool: 'run_command',
  args: { command },
  output: { exitCode: 0, stdout: '', ...(writtenFiles === undefined ? {} : { writtenFiles }) },
})

describe('files written by commands', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler

  beforeEach(async () => {
    workspace = await createTestWorkspace()
    compiler = await createTestCompiler(workspace.root, {
      tools: {
        ...testTools,
        fetch_url: { args: { url: { type: 'string', format: 'url' } } },
      },
      commands: { allow: ['npm', 'cp', 'git', 'ls', 'node'] },
      trust: {
        defaultOutput: 'untrusted',
        tainted: { commands: ['npm test', 'cp', 'git checkout', 'ls'], writes: ['test/**'] },
      },
    })
  })

  afterEach(async () => {
    await workspace.remove()
  })

  const guard = () => createPlanGuard(undefined, { compiler, checkPathsOnDisk: false })

  it('should refuse running a test a tainted command copied from a README', async () => {
    const codes = await playTurns(guard(), [
      view('README.md'),
      run('cp README.md test/a.test.js', ['test/a.test.js']),
      run('npm test'),
    ])
    expect(codes).toEqual([[], [], ['untrusted_flow']])
  })

  it('should refuse running a file a command copied from a labelled file', async () => {
    const codes = await playTurns(guard(), [
      view('README.md'),
      {
        tool: 'write_file',
        args: { file: 'test/notes.txt', content: 'Run the tests.' },
      },
      run('cp test/notes.txt test/b.test.js', ['test/b.test.js']),
      run('npm test'),
    ])
    expect(codes).toEqual([[], [], [], ['untrusted_flow']])
  })

  it('should label every file when the command could not be compared', async () => {
    const codes = await playTurns(guard(), [
      view('README.md'),
      run('git checkout -- test', ['**']),
      run('npm test'),
    ])
    expect(codes[2]).toEqual(['untrusted_flow'])
  })

  it('should allow the tests again after a test run that wrote files', async () => {
    const codes = await playTurns(guard(), [
      view('README.md'),
      run('npm test', ['coverage/out.json', 'test/__snapshots__/a.snap']),
      run('npm test'),
    ])
    expect(codes).toEqual([[], [], []])
  })

  it('should allow the tests after a tainted copy of code', async () => {
    const codes = await playTurns(guard(), [
      { tool: 'view_file', args: { file: 'src/strings.js' }, output: { content: 'code' } },
      run('cp test/strings.test.js test/copy.test.js', ['test/copy.test.js']),
      run('npm test'),
    ])
    expect(codes).toEqual([[], [], []])
  })

  it('should refuse the tests after a tainted copy of a README, wherever the run read it', async () => {
    const codes = await playTurns(guard(), [
      { tool: 'view_file', args: { file: 'src/strings.js' }, output: { content: 'code' } },
      run('cp README.md test/copy.test.js', ['test/copy.test.js']),
      run('npm test'),
    ])
    expect(codes).toEqual([[], [], ['untrusted_flow']])
  })

  it('should allow the tests after an untainted copy', async () => {
    const codes = await playTurns(guard(), [
      run('cp test/a.test.js test/b.test.js', ['test/b.test.js']),
      run('npm test'),
    ])
    expect(codes).toEqual([[], []])
  })

  it('should keep the labels of an earlier run of the workspace in a fresh run', async () => {
    const earlier = guard()
    await playTurns(earlier, [
      view('README.md'),
      run('cp README.md test/a.test.js', ['test/a.test.js']),
    ])
    const labelledFiles = earlier.snapshot().flow?.files ?? {}
    const fresh = createPlanGuard(undefined, { compiler, checkPathsOnDisk: false, labelledFiles })
    expect(await playTurns(fresh, [view('src/a.js'), run('npm test')])).toEqual([
      [],
      ['untrusted_flow'],
    ])
    const unrelated = createPlanGuard(undefined, { compiler, checkPathsOnDisk: false })
    expect(await playTurns(unrelated, [view('src/a.js'), run('npm test')])).toEqual([[], []])
  })

  it('should never clear a label because an output claims a write', async () => {
    const parts = guard()
    const codes = await playTurns(parts, [
      view('README.md'),
      run('cp README.md test/c.test.js', ['test/c.test.js']),
      {
        tool: 'fetch_url',
        args: { url: 'https://docs.example.com/' },
        output: { writtenFiles: ['test/c.test.js'] },
      },
      run('ls', ['test/c.test.js']),
    ])
    expect(codes.slice(0, 3)).toEqual([[], [], ['tainted_run']])
    expect(parts.snapshot().flow?.files?.['test/c.test.js']).toContain('file:README.md')
  })
})

describe('commands of one turn that could race', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler

  beforeEach(async () => {
    workspace = await createTestWorkspace()
    compiler = await createTestCompiler(workspace.root, {
      commands: { allow: ['npm', 'cp', 'git', 'ls'] },
      trust: {
        defaultOutput: 'untrusted',
        tainted: { commands: ['npm test', 'cp', 'git status', 'ls'], writes: ['test/**'] },
      },
    })
  })

  afterEach(async () => {
    await workspace.remove()
  })

  /** Submits one turn of calls and authorizes them all before any completes; their codes. */
  async function parallelTurn(guard: PlanGuard, commands: readonly string[]) {
    const steps = commands.map((command, index) => ({
      id: `p${index}`,
      tool: 'run_command',
      args: { command },
    }))
    guard.submitPlan(steps, 'turn')
    const codes: string[][] = []
    for (const step of steps) {
      const result = await guard.authorize({ tool: step.tool, args: step.args, callId: step.id })
      codes.push(result.allowed ? [] : result.issues.map((issue) => issue.code))
    }
    return codes
  }

  it('should refuse running the tests beside a tainted copy, in either order', async () => {
    for (const order of [
      ['cp README.md test/a.test.js', 'npm test'],
      ['npm test', 'cp README.md test/a.test.js'],
    ]) {
      const guard = createPlanGuard(undefined, { compiler, checkPathsOnDisk: false })
      await playTurns(guard, [view('README.md')])
      expect(await parallelTurn(guard, order)).toEqual([[], ['tainted_run']])
    }
  })

  it('should allow the tests beside commands that only print', async () => {
    const guard = createPlanGuard(undefined, { compiler, checkPathsOnDisk: false })
    await playTurns(guard, [view('README.md')])
    expect(await parallelTurn(guard, ['git status', 'npm test', 'ls test'])).toEqual([[], [], []])
  })
})

describe('files reported written by other tools', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler

  beforeEach(async () => {
    workspace = await createTestWorkspace()
    compiler = await createTestCompiler(workspace.root, {
      tools: { ...testTools, scaffold: { args: { name: { type: 'string' } } } },
      commands: { allow: ['npm'] },
      trust: { defaultOutput: 'untrusted', tainted: { commands: ['npm test'] } },
    })
  })

  afterEach(async () => {
    await workspace.remove()
  })

  const scaffold = (output: unknown): Call => ({ tool: 'scaffold', args: { name: 'x' }, output })
  const guard = () => createPlanGuard(undefined, { compiler, checkPathsOnDisk: false })

  it('should label what a tool without a command reports, in its output or an MCP result', async () => {
    for (const output of [
      { writtenFiles: ['test/gen.test.js'] },
      {
        content: [{ type: 'text', text: 'done' }],
        structuredContent: { writtenFiles: [`${workspace.root}/test/gen.test.js`] },
      },
    ]) {
      const parts = guard()
      const codes = await playTurns(parts, [view('README.md'), scaffold(output), run('npm test')])
      expect(codes).toEqual([[], [], ['untrusted_flow']])
      expect(parts.snapshot().flow?.files?.['test/gen.test.js']).toContain('file:README.md')
    }
  })

  it('should label nothing for a report made before any untrusted data', async () => {
    const codes = await playTurns(guard(), [
      scaffold({ writtenFiles: ['test/gen.test.js'] }),
      run('npm test'),
    ])
    expect(codes).toEqual([[], []])
  })
})
