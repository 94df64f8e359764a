import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'

async function hintFor(allow: readonly string[], command: string) {
  const compiler = await createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: { run_command: { args: { command: { type: 'command' } } } },
    commands: { allow: [...allow] },
  })
  const result = compiler.checkCommand(command)
  if (result.allowed) throw new Error(`${command} was allowed`)
  return result.issue
}

describe('command_not_allowed hint', () => {
  it('should name the allowed programs and the policy line that would allow this one', async () => {
    const issue = await hintFor(['npm', 'git', 'ls'], 'make build')
    expect(issue.code).toBe('command_not_allowed')
    expect(issue.hint).toBe('Use one of: git, ls, npm. To allow it, add "make" to commands.allow.')
  })

  it('should name a dozen of many programs and how many there are', async () => {
    const many = Array.from({ length: 20 }, (_, index) => `tool${String(index).padStart(2, '0')}`)
    const issue = await hintFor(many, 'make build')
    expect(issue.hint).toBe(
      `Use one of: ${many.slice(0, 12).join(', ')} and 8 more (20 in all). To allow it, add "make" to commands.allow.`,
    )
  })

  it('should still allow a listed program', async () => {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: { run_command: { args: { command: { type: 'command' } } } },
      commands: { allow: ['git'] },
    })
    expect(compiler.checkCommand('git status')).toEqual({ allowed: true, argv: ['git', 'status'] })
  })
})
