import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from './create-plan-compiler.js'

describe('createPlanCompiler (warnings)', () => {
  it('should name allowed programs the command checker has no model of', async () => {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: { run: { args: { command: { type: 'command' } } } },
      commands: { allow: ['git', 'terraform'] },
    })
    expect(compiler.warnings).toHaveLength(1)
    expect(compiler.warnings[0]).toMatchObject({ code: 'command_unmodelled_program' })
    expect(compiler.warnings[0]?.message).toContain('"terraform"')
  })

  it('should have no warnings when every allowed program is modelled', async () => {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: {},
      commands: { allow: ['git', 'cat', 'grep'] },
    })
    expect(compiler.warnings).toEqual([])
  })
})
