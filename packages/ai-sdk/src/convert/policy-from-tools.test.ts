import { createPlanCompiler, PolicyError } from '@plan/core'
import { jsonSchema, tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createTestWorkspace } from '../test/test-workspace.js'
import { policyFromTools } from './policy-from-tools.js'

const viewFile = tool({
  description: 'Read a file',
  inputSchema: z.object({ file: z.string(), lines: z.number().optional() }),
  execute: async () => '',
})
const runCommand = tool({
  inputSchema: jsonSchema<{ command: string }>({
    type: 'object',
    properties: { command: { type: 'string' } },
    required: ['command'],
  }),
  execute: async () => '',
})

describe('policyFromTools', () => {
  it('should declare the arguments of zod and jsonSchema() tools, with the overrides', async () => {
    const tools = await policyFromTools(
      { view_file: viewFile, run_command: runCommand },
      { overrides: { view_file: { args: { file: { type: 'path', access: 'read' } } } } },
    )

    expect(tools).toEqual({
      view_file: {
        description: 'Read a file',
        args: {
          file: { type: 'path', access: 'read' },
          lines: { type: 'number', required: false },
        },
      },
      run_command: { args: { command: { type: 'string' } } },
    })
    const root = (await createTestWorkspace()).root
    const compiler = await createPlanCompiler({ version: 1, workspace: { roots: [root] }, tools })
    expect(
      compiler.validate([{ id: 'a', tool: 'view_file', args: { file: '../x' } }]).success,
    ).toBe(false)
  })

  it('should reject an override of an argument the tool does not have', async () => {
    const creating = policyFromTools(
      { view_file: viewFile },
      { overrides: { view_file: { args: { path: { type: 'path', access: 'read' } } } } },
    )

    await expect(creating).rejects.toSatisfy((error) => PolicyError.isInstance(error))
  })
})
