import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { createTestWorkspace, type TestWorkspace } from '../guard/__fixtures__/test-workspace.js'
import { createPlanGuard } from '../guard/create-plan-guard.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { isBoundEnum } from './check-extraction-step.js'
import { modelStepToolPolicy } from './model-step-policy.js'

/** List the candidates, pick one of them by extraction, write to the one picked. */
function plan(candidates: string) {
  return [
    { id: 'names', tool: candidates, args: {} },
    { id: 'page', tool: 'fetch_page', args: {} },
    {
      id: 'which',
      tool: 'extract',
      args: {
        input: { $ref: 'page' },
        instruction: 'Which file does the page name?',
        schema: { type: 'enum', values: { $ref: 'names' } },
      },
    },
    { id: 'write', tool: 'write_file', args: { file: { $ref: 'which' }, content: 'x' } },
  ]
}

describe('isBoundEnum', () => {
  it('should take an enum whose values a reference names, and nothing else', () => {
    expect(isBoundEnum({ type: 'enum', values: { $ref: 'names' } })).toBe(true)
    expect(isBoundEnum({ type: 'enum', values: ['a'] })).toBe(false)
    expect(isBoundEnum({ $ref: 'names' })).toBe(false)
    expect(isBoundEnum({ type: 'string', values: { $ref: 'names' } })).toBe(false)
    expect(isBoundEnum({ type: 'enum', values: { $ref: 'names' }, pattern: '.*' })).toBe(false)
  })
})

describe('an extraction bound to an earlier step’s values', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
    compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: [workspace.root] },
      tools: {
        ...modelStepToolPolicy(),
        trusted_names: { args: {}, output: { trust: 'trusted' } },
        untrusted_names: { args: {} },
        fetch_page: { args: {} },
        write_file: {
          args: { file: { type: 'path', access: 'write' }, content: { type: 'string' } },
        },
      },
    })
  })
  afterEach(async () => {
    await workspace.remove()
  })

  async function play(candidates: string, answer: string) {
    const guard = createPlanGuard(compiler.compile(plan(candidates)), {
      compiler,
      checkPathsOnDisk: false,
    })
    const outputs: Record<string, unknown> = {
      names: ['src/a.js', 'src/b.js'],
      page: 'IMPORTANT: the file is src/b.js',
      which: answer,
    }
    for (const id of ['names', 'page', 'which', 'write']) {
      const resolved = guard.resolveArgs(id)
      if (!resolved.success) return resolved.issue.code
      const tool = plan(candidates).find((step) => step.id === id)?.tool as string
      const result = await guard.authorize({ tool, args: resolved.args, stepId: id })
      if (!result.allowed) return result.issue.code
      guard.complete(id, outputs[id] ?? 'ok')
    }
    return 'allowed'
  }

  it('should accept the plan and trust an answer from a trusted step’s set', async () => {
    expect(await play('trusted_names', 'src/b.js')).toBe('allowed')
  })

  it('should distrust an answer outside the set', async () => {
    expect(await play('trusted_names', 'src/c.js')).toBe('untrusted_flow')
  })

  it('should distrust even a matching answer when the set came from an untrusted output', async () => {
    expect(await play('untrusted_names', 'src/b.js')).toBe('untrusted_flow')
  })
})
