import type { PlanIssue } from '@plan/shell/common'
import { beforeAll, describe, expect, it } from 'vitest'
import { modelStepToolPolicy } from '../extract/model-step-policy.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { createPlanCompiler } from './create-plan-compiler.js'

type Step = { id: string; tool: string; args: Record<string, unknown>; depends_on?: string[] }

const page = (id: string, url = 'https://docs.example.com/a'): Step => ({
  id,
  tool: 'fetch_url',
  args: { url },
})
const view = (id: string, file: unknown): Step => ({ id, tool: 'view_file', args: { file } })
const generate = (id: string, ...from: string[]): Step => ({
  id,
  tool: 'generate',
  args: { input: from.map((source) => ({ $ref: source })), instruction: 'Write the file.' },
})
const write = (id: string, file: unknown, from: string): Step => ({
  id,
  tool: 'write_file',
  args: { file, content: { $ref: from } },
})
const run = (id: string, command: string, ...after: string[]): Step => ({
  id,
  tool: 'run_command',
  args: { command },
  ...(after.length > 0 ? { depends_on: after } : {}),
})
const pathExtract = (id: string, from: string, within: string[]): Step => ({
  id,
  tool: 'extract',
  args: {
    input: { $ref: `${from}.output.content` },
    instruction: 'Which file?',
    schema: { type: 'path', within },
  },
})

describe('createPlanCompiler().validate (write, then run)', () => {
  let compiler: PlanCompiler

  beforeAll(async () => {
    compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: {
        view_file: { args: { file: { type: 'path', access: 'read' } } },
        write_file: {
          args: { file: { type: 'path', access: 'write' }, content: { type: 'string' } },
        },
        run_command: { args: { command: { type: 'command' } } },
        run_commands: { args: { commands: { type: 'array', items: { type: 'command' } } } },
        fetch_url: { args: { url: { type: 'string', format: 'url' } } },
        ...modelStepToolPolicy(),
      },
      commands: { allow: ['npm', 'node', 'python3', 'pytest', 'git', 'ls', 'make'] },
      trust: { defaultOutput: 'untrusted' },
    })
  })

  function runIssues(steps: readonly Step[]): readonly PlanIssue[] {
    const result = compiler.validate({ steps })
    return result.success ? [] : result.issues
  }

  const codesAt = (steps: readonly Step[]) =>
    runIssues(steps).map((issue) => `${issue.code} ${issue.stepId}`)

  it('should refuse running a test generated from a page, after the write or beside it', () => {
    const plan = [page('p'), generate('g', 'p'), write('w', 'test/g.test.js', 'g')]
    expect(codesAt([...plan, run('t', 'npm test', 'w')])).toEqual(['untrusted_flow t'])
    expect(codesAt([...plan, run('t', 'node --test')])).toEqual(['untrusted_flow t'])
  })

  it('should name the flow from the page to the command', () => {
    const [issue] = runIssues([
      page('p'),
      write('w', 'docs/a.test.js', 'p'),
      run('t', 'npm test', 'w'),
    ])
    expect(issue).toMatchObject({
      code: 'untrusted_flow',
      stepId: 't',
      path: ['steps', 2, 'args', 'command'],
      flow: ['p.output', 'w.args.content', 'docs/a.test.js', 't.args.command'],
    })
    expect(issue?.message).toContain('url:docs.example.com')
  })

  it('should refuse a package script, an interpreter, a build tool and a list of commands', () => {
    for (const [file, command] of [
      ['scripts/lint.js', 'npm run lint'],
      ['scripts/build.mjs', 'node scripts/build.mjs'],
      ['conftest.py', 'pytest'],
      ['tools/gen.py', 'python3 tools/gen.py'],
      ['Makefile.inc', 'make'],
    ] as const)
      expect(
        codesAt([view('r', 'README.md'), write('w', file, 'r'), run('t', command, 'w')]),
        file,
      ).toEqual(['untrusted_flow t'])
    const listed: Step = {
      id: 't',
      tool: 'run_commands',
      args: { commands: ['ls', 'npm test'] },
      depends_on: ['w'],
    }
    expect(
      runIssues([page('p'), write('w', 'test/x.test.js', 'p'), listed]).map((issue) => issue.path),
    ).toEqual([['steps', 2, 'args', 'commands', 1]])
  })

  it('should refuse a run of a file written to a path an extract step picks in a broad glob', () => {
    const steps = [
      view('readme', 'README.md'),
      pathExtract('which', 'readme', ['src/**']),
      view('source', { $ref: 'which' }),
      generate('fix', 'source'),
      write('w', { $ref: 'which' }, 'fix'),
      run('t', 'npm test', 'w'),
    ]
    expect(codesAt(steps)).toEqual(['untrusted_flow t'])
  })

  it('should allow a test written from the code it tests', () => {
    const steps = [
      view('source', 'src/strings.js'),
      view('tests', 'test/strings.test.js'),
      generate('g', 'source', 'tests'),
      write('w', 'test/upper.test.js', 'g'),
      run('t', 'npm test', 'w'),
    ]
    expect(codesAt(steps)).toEqual([])
  })

  it('should allow a fix of a file an extract step picks among code files, then the tests', () => {
    const steps = [
      view('failing', 'test/math.test.js'),
      pathExtract('which', 'failing', ['src/**/*.js']),
      view('source', { $ref: 'which' }),
      generate('fix', 'failing', 'source'),
      write('w', { $ref: 'which' }, 'fix'),
      run('t', 'npm test', 'w'),
    ]
    expect(codesAt(steps)).toEqual([])
  })

  it('should read an enum of paths as the files it names', () => {
    const pick = (values: string[]): Step => ({
      id: 'which',
      tool: 'extract',
      args: {
        input: { $ref: 'out.output.stdout' },
        instruction: 'Which file fails?',
        schema: { type: 'enum', values },
      },
    })
    const steps = (values: string[]) => [
      run('out', 'npm test'),
      pick(values),
      view('source', { $ref: 'which' }),
      generate('fix', 'out', 'source'),
      write('w', { $ref: 'which' }, 'fix'),
      run('t', 'npm test', 'w'),
    ]
    expect(codesAt(steps(['src/math.js', 'src/strings.js']))).toEqual([])
    expect(codesAt(steps(['src/math.js', 'README.md']))).toEqual(['untrusted_flow t'])
  })

  it('should allow notes from a page, a run before the write, and commands that run nothing', () => {
    expect(codesAt([page('p'), write('w', 'NOTES.md', 'p'), run('t', 'npm test', 'w')])).toEqual([])
    const before: Step = { ...write('w', 'test/x.test.js', 'p'), depends_on: ['t'] }
    expect(codesAt([page('p'), run('t', 'npm test'), before])).toEqual([])
    for (const command of ['git status', 'ls test', 'npm --version'])
      expect(
        codesAt([page('p'), write('w', 'test/x.test.js', 'p'), run('t', command, 'w')]),
      ).toEqual([])
  })

  it('should allow a test whose content the plan writes itself', () => {
    const literal: Step = {
      id: 'w',
      tool: 'write_file',
      args: { file: 'test/x.test.js', content: "import 'node:test'\n" },
      depends_on: ['p'],
    }
    expect(codesAt([page('p'), literal, run('t', 'npm test', 'w')])).toEqual([])
  })
})
