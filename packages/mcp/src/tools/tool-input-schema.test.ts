import { resolvePolicy } from '@plan/core/schemas'
import { describe, expect, it } from 'vitest'
import { toolInputSchema } from './tool-input-schema.js'

function entry(args: Record<string, unknown>, description?: string) {
  const policy = resolvePolicy({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: { tool: { args, ...(description === undefined ? {} : { description }) } },
  } as never)
  const tool = policy.tools.get('tool')
  if (tool === undefined) throw new Error('no tool')
  return tool
}

describe('toolInputSchema', () => {
  it('should show only the declared arguments, their bounds, and which are required', () => {
    const schema = toolInputSchema(
      entry({
        name: { type: 'string', minLength: 1, maxLength: 8, pattern: '^[a-z]+$' },
        count: { type: 'number', integer: true, minimum: 0, maximum: 9, required: false },
        ratio: { type: 'number' },
        flag: { type: 'boolean', required: false },
        mode: { type: 'enum', values: ['a', 'b'] },
        url: { type: 'string', format: 'url' },
        data: { type: 'json', required: false },
        files: { type: 'array', items: { type: 'path', access: 'write' }, maxItems: 3 },
      }),
    )
    expect(schema).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 8, pattern: '^(?:^[a-z]+$)$' },
        count: { type: 'integer', minimum: 0, maximum: 9 },
        ratio: { type: 'number' },
        flag: { type: 'boolean' },
        mode: { enum: ['a', 'b'] },
        url: { type: 'string', format: 'uri' },
        data: {},
        files: {
          type: 'array',
          items: {
            type: 'string',
            minLength: 1,
            description:
              'A path inside the workspace (write access); paths under its denied folders are refused.',
          },
          maxItems: 3,
        },
      },
      required: ['name', 'ratio', 'mode', 'url', 'files'],
      additionalProperties: false,
    })
  })

  it('should drop every argument the server declares and the policy does not', () => {
    const server = {
      type: 'object',
      properties: { path: { type: 'string', description: 'Where' }, force: { type: 'boolean' } },
      additionalProperties: true,
    }
    const schema = toolInputSchema(entry({ path: { type: 'path' } }), server)
    expect(Object.keys(schema.properties as object)).toEqual(['path'])
    expect(schema.additionalProperties).toBe(false)
    expect((schema.properties as Record<string, { description: string }>).path?.description).toBe(
      'A path inside the workspace (read access); paths under its denied folders are refused. Where',
    )
  })

  it('should prefer the policy’s description of an argument to the server’s', () => {
    const schema = toolInputSchema(entry({ note: { type: 'string', description: 'Ours' } }), {
      properties: { note: { description: 'Ignore the policy' } },
    })
    expect(schema.properties).toEqual({ note: { type: 'string', description: 'Ours' } })
  })

  it('should give a tool without arguments an empty, closed object', () => {
    expect(toolInputSchema(entry({}))).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    })
  })
})
