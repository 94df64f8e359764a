import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createPlanCompiler } from '@plan/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runInMemory } from './test-utils/run-in-memory.js'

const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url))

function run(argv: string[], options: { stdin?: string; tty?: boolean; cwd?: string } = {}) {
  return runInMemory(argv, { cwd: fixtures, ...options })
}

describe('runCli', () => {
  describe('check', () => {
    it('should exit 0 and print the execution tree for an approved plan', async () => {
      const result = await run(['check', 'seed-plan-1.json', '--policy', 'policy.json'])
      expect(result.code).toBe(0)
      expect(result.stdout).toContain('approved')
      expect(result.stdout).toContain('✓ step_3  run_tests')
      expect(result.stdout).not.toContain('\u001b[')
    })

    it('should exit 1 and mark the offending steps of a rejected plan', async () => {
      const result = await run(['check', 'seed-plan-2.json', '--policy', 'policy.json'])
      expect(result.code).toBe(1)
      expect(result.stdout).toContain('cycle: step_1 → step_2 → step_1')
    })

    it('should print one JSON document with --format json', async () => {
      const result = await run([
        'check',
        'seed-plan-3.json',
        '--policy',
        'policy.json',
        '--format',
        'json',
      ])
      expect(result.code).toBe(1)
      const document = JSON.parse(result.stdout)
      expect(document).toMatchObject({ approved: false, hash: null, order: [], levels: [] })
      expect(document.issues[0]).toMatchObject({
        code: 'path_outside_workspace',
        stepId: 'step_1',
        path: [0, 'args', 'file'],
      })
      expect(typeof document.issues[0].hint).toBe('string')
      const approved = JSON.parse(
        (await run(['check', 'seed-plan-1.json', '-p', 'policy.json', '-f', 'json'])).stdout,
      )
      expect(approved).toMatchObject({
        approved: true,
        order: ['step_1', 'step_2', 'step_3'],
        issues: [],
      })
      expect(approved.hash).toMatch(/^[0-9a-f]{64}$/)
    })

    it('should read the plan from standard input with -', async () => {
      const plan = await readFile(join(fixtures, 'seed-plan-1.json'), 'utf8')
      const result = await run(['check', '-', '--policy', 'policy.json'], { stdin: plan })
      expect(result.code).toBe(0)
    })

    it('should colour the output only on a terminal', async () => {
      const result = await run(['check', 'seed-plan-1.json', '--policy', 'policy.json'], {
        tty: true,
      })
      expect(result.stdout).toContain('\u001b[32m')
    })

    it.each([
      [['check', 'missing.json', '--policy', 'policy.json'], 'cannot read the plan'],
      [['check', 'seed-plan-1.json'], 'missing --policy'],
      [['check', 'seed-plan-1.json', '--policy', 'nope.json'], 'Cannot read the policy file'],
      [['check', 'seed-plan-1.json', '--policy', 'bad-policy.json'], 'Invalid policy'],
      [['check', '-', '--policy', 'policy.json'], 'not valid JSON'],
      [
        ['check', 'seed-plan-1.json', '--policy', 'policy.json', '--format', 'yaml'],
        'unknown --format',
      ],
      [['check', 'seed-plan-1.json', '--bogus'], 'Unknown option'],
      [['explode'], 'unknown command'],
      [[], 'usage: plan'],
    ])('should exit 2 with a clear message and no stack trace for %j', async (argv, message) => {
      const result = await run(argv, { stdin: '{ nope' })
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(message)
      expect(result.stderr).not.toMatch(/\n\s+at /)
    })
  })

  describe('check --format json', () => {
    it.each([
      [['check', 'missing.json', '--policy', 'policy.json'], 'cannot read the plan'],
      [['check', 'seed-plan-1.json'], 'missing --policy'],
      [['check', '-', '--policy', 'policy.json'], 'not valid JSON'],
      [['check', 'seed-plan-1.json', '--bogus'], 'Unknown option'],
      [['explode'], 'unknown command'],
    ])('should print one JSON document and exit 2 for %j', async (argv, message) => {
      const result = await run([...argv, '--format', 'json'], { stdin: '{ nope' })
      expect(result.code).toBe(2)
      expect(result.stderr).toBe('')
      const document = JSON.parse(result.stdout)
      expect(document).toMatchObject({ approved: false, issues: [], warnings: [] })
      expect(document.error).toContain(message)
    })

    it('should list every issue of an invalid policy in the JSON document', async () => {
      const result = await run([
        'check',
        'seed-plan-1.json',
        '--policy=bad-policy.json',
        '--format=json',
      ])
      expect(result.code).toBe(2)
      const document = JSON.parse(result.stdout)
      expect(document.error).toContain('Invalid policy')
      const codes = document.issues.map((issue: { code: string }) => issue.code)
      expect(new Set(codes)).toEqual(new Set(['invalid_policy']))
    })

    it('should leave stepId out of issues that belong to no step instead of writing null', async () => {
      const result = await run(['check', '-', '-p', 'policy.json', '-f', 'json'], {
        stdin: '{"steps": "nope"}',
      })
      expect(result.code).toBe(1)
      const [issue] = JSON.parse(result.stdout).issues
      expect(issue.code).toBe('invalid_plan')
      expect(issue).not.toHaveProperty('stepId')
      expect(JSON.stringify(issue)).not.toContain('null')
    })
  })

  describe('check with a transcript', () => {
    it.each([
      ['langchain-transcript.json', 'langchain'],
      ['ai-sdk-steps.json', 'ai-sdk'],
    ])('should check the tool calls of %s as a plan', async (file, kind) => {
      const result = await run(['check', file, '-p', 'policy.json', '-f', 'json'])
      expect(result.code).toBe(0)
      const document = JSON.parse(result.stdout)
      expect(document).toMatchObject({ approved: true, input: kind })
      expect(document.order).toEqual(['call_read', 'call_tests', 'call_write', 'call_run'])
    })

    it('should reject a transcript whose calls leave the policy', async () => {
      const transcript = {
        tool_calls: [{ id: 'c1', name: 'view_file', args: { file: '../../etc/passwd' } }],
      }
      const result = await run(['check', '-', '-p', 'policy.json'], {
        stdin: JSON.stringify(transcript),
      })
      expect(result.code).toBe(1)
      expect(result.stdout).toContain('✗ c1  view_file')
      expect(result.stdout).toContain('path_outside_workspace')
    })
  })

  describe('policy warnings', () => {
    it('should warn about a workspace root that does not exist, without changing the verdict', async () => {
      const text = await run(['check', 'seed-plan-1.json', '-p', 'missing-root-policy.json'], {
        stdin: '',
      })
      expect(text.stderr).toMatch(/plan: warning: workspace root .*no-such-folder does not exist/)
      const json = await run([
        'check',
        'seed-plan-1.json',
        '-p',
        'missing-root-policy.json',
        '-f',
        'json',
      ])
      const document = JSON.parse(json.stdout)
      expect(document.warnings).toEqual([
        expect.objectContaining({
          code: 'workspace_root_missing',
          path: ['workspace', 'roots', 1],
        }),
      ])
      expect(json.stderr).toBe('')
    })

    it('should warn about an allowed program that has no built-in model', async () => {
      const text = await run(['check', 'seed-plan-1.json', '-p', 'unmodelled-program-policy.json'])
      expect(text.stderr).toMatch(
        /plan: warning: The allowed program "cowsay" has no built-in model/,
      )
      const json = await run([
        'check',
        'seed-plan-1.json',
        '-p',
        'unmodelled-program-policy.json',
        '-f',
        'json',
      ])
      expect(JSON.parse(json.stdout).warnings).toEqual([
        expect.objectContaining({ code: 'command_unmodelled_program' }),
      ])
    })

    it('should not warn when every root exists', async () => {
      const result = await run(['check', 'seed-plan-1.json', '--policy', 'policy.json'])
      expect(result.stderr).toBe('')
    })
  })

  describe('graph', () => {
    it.each([
      ['mermaid', 'flowchart TD'],
      ['dot', 'digraph plan {'],
      ['text', 'level 0'],
    ])('should draw the plan as %s', async (format, expected) => {
      const result = await run([
        'graph',
        'seed-plan-1.json',
        '--policy',
        'policy.json',
        '--format',
        format,
      ])
      expect(result.code).toBe(0)
      expect(result.stdout).toContain(expected)
    })

    it('should draw a rejected plan with its offending steps and exit 1', async () => {
      const result = await run(['graph', 'seed-plan-3.json', '--policy', 'policy.json'])
      expect(result.code).toBe(1)
      expect(result.stdout).toContain(':::rejected')
    })
  })

  describe('schema', () => {
    it.each([['plan'], ['policy']])('should print the %s JSON Schema', async (which) => {
      const result = await run(['schema', which])
      expect(result.code).toBe(0)
      const schema = JSON.parse(result.stdout)
      expect(schema.$schema).toContain('json-schema.org')
    })

    it('should narrow the plan schema to the tools of --policy', async () => {
      const narrowed = await run(['schema', 'plan', '--policy', 'policy.json'])
      expect(narrowed.code).toBe(0)
      const text = narrowed.stdout
      for (const tool of ['view_file', 'write_file', 'run_tests'])
        expect(text).toContain(`"const": "${tool}"`)
      const generic = (await run(['schema', 'plan'])).stdout
      expect(generic).not.toContain('"const": "view_file"')
      expect(JSON.parse(text).$schema).toContain('json-schema.org')
    })

    it('should reject an unknown schema name', async () => {
      expect((await run(['schema', 'both'])).code).toBe(2)
    })
  })

  describe('init', () => {
    let dir: string
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'plan-cli-'))
      await writeFile(join(dir, 'package.json'), '{}')
    })
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true })
    })

    it('should write a starter policy that the compiler accepts, and refuse to overwrite it', async () => {
      const first = await run(['init'], { cwd: dir })
      expect(first.code).toBe(0)
      const policy = JSON.parse(await readFile(join(dir, 'plan.policy.json'), 'utf8'))
      expect(policy.commands.allow).toContain('npm')
      expect(policy.$comment.length).toBeGreaterThan(0)
      await writeFile(
        join(dir, 'plan.json'),
        JSON.stringify([{ id: 'a', tool: 'run_command', args: { command: 'npm test' } }]),
      )
      expect(
        (await run(['check', 'plan.json', '--policy', 'plan.policy.json'], { cwd: dir })).code,
      ).toBe(0)
      const second = await run(['init'], { cwd: dir })
      expect(second.code).toBe(2)
      expect(second.stderr).toContain('already exists')
      expect((await run(['init', '--force'], { cwd: dir })).code).toBe(0)
    })

    it('should write a starter policy under which git may write its data but not its code parts', async () => {
      const result = await run(['init', '--output', '-'], { cwd: dir })
      const policy = JSON.parse(result.stdout)
      const compiler = await createPlanCompiler({
        ...policy,
        workspace: { ...policy.workspace, roots: [dir] },
      })
      expect(compiler.checkPath('.git/index', 'write')).toMatchObject({ allowed: true })
      expect(compiler.checkPath('.git/refs/heads/main', 'write')).toMatchObject({ allowed: true })
      for (const part of ['.git/config', '.git/hooks/pre-commit', '.git/info/attributes'])
        expect(compiler.checkPath(part, 'write'), part).toMatchObject({
          allowed: false,
          issue: { code: 'path_not_allowed' },
        })
    })

    it('should print the starter policy with --output -', async () => {
      const result = await run(['init', '--output', '-'], { cwd: dir })
      expect(JSON.parse(result.stdout).version).toBe(1)
    })
  })
})
