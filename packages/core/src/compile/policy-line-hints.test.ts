import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from './create-plan-compiler.js'

const names = Array.from({ length: 14 }, (_, index) => `tool_${String(index).padStart(2, '0')}`)

async function compilerFor() {
  return createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: {
      view_file: { args: { file: { type: 'path', access: 'read' } } },
      ...Object.fromEntries(names.map((name) => [name, {}])),
    },
  })
}

describe('hints that name the policy line', () => {
  it('should name a few of many tools, how many, and what an unknown tool would need', async () => {
    const result = (await compilerFor()).validate([{ id: 'a', tool: 'deploy' }])
    const issue = result.success ? undefined : result.issues[0]
    expect(issue?.code).toBe('unknown_tool')
    expect(issue?.hint).toBe(
      'Allowed tools: view_file, tool_00, tool_01, tool_02, tool_03, tool_04 and 9 more (15 in all). Calling "deploy" needs an entry for it in the policy\'s tools.',
    )
  })

  it('should name the declared arguments and what an undeclared one would need', async () => {
    const result = (await compilerFor()).validate([
      { id: 'a', tool: 'view_file', args: { file: 'a.md', encoding: 'utf8' } },
    ])
    const issue = result.success ? undefined : result.issues[0]
    expect(issue?.code).toBe('unknown_argument')
    expect(issue?.hint).toBe(
      'Declared arguments: file. Passing "encoding" needs it declared in the tool\'s args in the policy.',
    )
  })

  it('should approve the same call with declared arguments only', async () => {
    const result = (await compilerFor()).validate([
      { id: 'a', tool: 'view_file', args: { file: 'a.md' } },
    ])
    expect(result.success).toBe(true)
  })
})
