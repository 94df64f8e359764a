import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import type { PolicyInput } from '../schema/policy-schema.js'
import { planSchemaForPolicy } from './plan-schema-for-policy.js'

const policy: PolicyInput = {
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: {
    view_file: { description: 'Read a file', args: { file: { type: 'path' } } },
    run_command: { args: { command: { type: 'command' } } },
    search: {
      args: {
        query: { type: 'string', maxLength: 20 },
        mode: { type: 'enum', values: ['exact', 'fuzzy'], required: false },
        limit: { type: 'number', integer: true, minimum: 1, required: false },
      },
    },
    list: {},
  },
}

describe('planSchemaForPolicy', () => {
  const schema = planSchemaForPolicy(policy)

  it('should accept a plan of allowed tools with declared arguments and references', async () => {
    const plan = {
      steps: [
        { id: 'find', tool: 'search', args: { query: 'TODO', mode: 'exact', limit: 5 } },
        {
          id: 'read',
          tool: 'view_file',
          args: { file: { $ref: 'find.output.first' } },
          depends_on: ['find'],
        },
        { id: 'ls', tool: 'list' },
      ],
    }
    expect(schema.safeParse(plan).success).toBe(true)
    const compiler = await createPlanCompiler(policy)
    expect(compiler.validate(schema.parse(plan)).success).toBe(true)
  })

  it.each([
    ['an unknown tool', { id: 'a', tool: 'rm', args: {} }],
    ['a tool name with another case', { id: 'a', tool: 'View_File', args: { file: 'a' } }],
    ['an undeclared argument', { id: 'a', tool: 'view_file', args: { file: 'a', mode: 'r' } }],
    ['a missing required argument', { id: 'a', tool: 'search', args: {} }],
    ['a value of the wrong type', { id: 'a', tool: 'search', args: { query: 'x', limit: 1.5 } }],
    ['a value outside the enum', { id: 'a', tool: 'search', args: { query: 'x', mode: 'regex' } }],
    ['a malformed reference', { id: 'a', tool: 'view_file', args: { file: { $ref: 'a.result' } } }],
    ['an id with a dot', { id: 'a.b', tool: 'list' }],
  ])('should reject %s', (_name, step) => {
    expect(schema.safeParse({ steps: [step] }).success).toBe(false)
  })

  it('should convert to a JSON Schema that names only the policy tools', () => {
    const json = JSON.stringify(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }))
    for (const tool of ['view_file', 'run_command', 'search', 'list'])
      expect(json).toContain(`"const":"${tool}"`)
    expect(json).toContain('Read a file')
  })

  it('should allow no step at all when the policy allows no tools', () => {
    const none = planSchemaForPolicy({ ...policy, tools: {} })
    expect(none.safeParse({ steps: [] }).success).toBe(true)
    expect(none.safeParse({ steps: [{ id: 'a', tool: 'list' }] }).success).toBe(false)
  })
})
