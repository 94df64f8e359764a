import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { createPlanGuard } from '../guard/create-plan-guard.js'
import { allowedText } from './allowed-text.js'

const policy = {
  version: 1 as const,
  workspace: { roots: ['/srv/repo'] },
  tools: {
    view_file: { args: { file: { type: 'path' as const } } },
    run_command: { args: { command: { type: 'command' as const } } },
  },
  commands: { allow: ['git'] },
}

describe('allowedText', () => {
  it('should describe the policy from a compiler', async () => {
    const compiler = await createPlanCompiler(policy)
    expect(allowedText({ compiler })).toBe(
      'Allowed: the tools view_file, run_command; paths inside /srv/repo; single commands (no pipes, lists or redirections) of git.',
    )
  })

  it('should name a few of many tools and programs, and how many there are', async () => {
    const names = Array.from({ length: 14 }, (_, index) => `tool_${index + 1}`)
    const programs = Array.from({ length: 15 }, (_, index) => `program${index + 1}`)
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: Object.fromEntries(names.map((name) => [name, {}])),
      commands: { allow: programs },
    })
    expect(allowedText({ compiler })).toBe(
      'Allowed: the tools tool_1, tool_2, tool_3, tool_4, tool_5, tool_6 and 8 more (14 in all); paths inside /srv/repo; single commands (no pipes, lists or redirections) of program1, program2, program3, program4, program5, program6, program7, program8, program9, program10, program11, program12 and 3 more (15 in all).',
    )
  })

  it('should list every tool of a policy with six or fewer', async () => {
    const names = Array.from({ length: 6 }, (_, index) => `tool_${index + 1}`)
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: Object.fromEntries(names.map((name) => [name, {}])),
    })
    expect(allowedText({ compiler })).toBe(
      'Allowed: the tools tool_1, tool_2, tool_3, tool_4, tool_5, tool_6; paths inside /srv/repo.',
    )
  })

  it('should list the ready steps of a guard with their exact arguments', async () => {
    const compiler = await createPlanCompiler(policy)
    const plan = compiler.compile([
      { id: 'read', tool: 'view_file', args: { file: 'a.md' } },
      { id: 'log', tool: 'run_command', args: { command: 'git log' }, depends_on: ['read'] },
    ])
    const guard = createPlanGuard(plan, { compiler, checkPathsOnDisk: false })
    expect(allowedText({ guard })).toBe(
      'Ready steps of the approved plan (call each tool with exactly these arguments):\n' +
        '- step "read": view_file {"file":"a.md"}',
    )
  })

  it('should say when every step has finished', async () => {
    const compiler = await createPlanCompiler(policy)
    const plan = compiler.compile([{ id: 'read', tool: 'view_file', args: { file: 'a.md' } }])
    const guard = createPlanGuard(plan, { compiler, checkPathsOnDisk: false })
    const decision = await guard.authorize({ tool: 'view_file', args: { file: 'a.md' } })
    expect(decision.allowed).toBe(true)
    guard.complete('read', 'text')
    expect(allowedText({ guard })).toBe(
      'Every step of the approved plan has finished; no more tool calls are needed.',
    )
  })
})
