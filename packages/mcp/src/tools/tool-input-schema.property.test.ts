import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import { createPlanCompiler } from '@plan/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toolInputSchema } from './tool-input-schema.js'

// Argument declarations whose check is the schema's alone (paths, commands and URLs are checked
// further by the guard, so there the shown schema is only a superset of what it accepts).
const bound = fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined })
const scalarSpec = fc.oneof(
  fc.record(
    {
      type: fc.constant('string' as const),
      minLength: bound,
      maxLength: bound,
      pattern: fc.constantFrom('^[a-z]+$', '^x', 'y$', '^[0-9]{2}$'),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('number' as const),
      integer: fc.boolean(),
      minimum: fc.integer({ min: -5, max: 5 }),
      maximum: fc.integer({ min: -5, max: 5 }),
    },
    { requiredKeys: ['type'] },
  ),
  fc.constant({ type: 'boolean' as const }),
  fc.record({
    type: fc.constant('enum' as const),
    values: fc.uniqueArray(
      fc.oneof(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 3 }), fc.boolean()),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
  }),
)
const argSpec = fc.oneof(
  { weight: 3, arbitrary: scalarSpec },
  {
    weight: 1,
    arbitrary: fc.record(
      { type: fc.constant('array' as const), items: scalarSpec, maxItems: bound },
      { requiredKeys: ['type', 'items'] },
    ),
  },
)
const declared = fc.dictionary(
  fc.constantFrom('a', 'b', 'c'),
  fc.tuple(argSpec, fc.boolean()).map(([spec, required]) => ({ ...spec, required })),
  { maxKeys: 3 },
)
const value = fc.oneof(
  fc.constantFrom('', 'a', 'ab', 'abcde', 'x1', '12', 'xy', 'b', 'c', 'A', '😀', 'é'),
  fc.integer({ min: -7, max: 7 }),
  fc.constantFrom(0.5, -1.5, 4.25),
  fc.boolean(),
  fc.constant(null),
  fc.array(
    fc.oneof(fc.constantFrom('a', 'xy', '12'), fc.integer({ min: -2, max: 5 }), fc.boolean()),
    {
      maxLength: 5,
    },
  ),
)

/** Calls of a tool declared `spec`: mostly its own arguments, now and then one it lacks. */
function callsOf(spec: Record<string, unknown>) {
  const own = Object.fromEntries(Object.keys(spec).map((name) => [name, value]))
  const call = fc.record({ ...own, d: value }, { requiredKeys: [] })
  return fc.array(
    fc.tuple(call, fc.integer({ min: 0, max: 9 })).map(([made, dice]) => {
      const { d, ...rest } = made as Record<string, unknown>
      return dice === 0 && d !== undefined ? made : rest
    }),
    { minLength: 1, maxLength: 8 },
  )
}

describe('toolInputSchema (generated declarations)', () => {
  it('should accept exactly the arguments the guard accepts, for types the schema fully states', async () => {
    const validator = new AjvJsonSchemaValidator()
    await fc.assert(
      fc.asyncProperty(
        declared.chain((spec) => fc.tuple(fc.constant(spec), callsOf(spec))),
        async ([spec, calls]) => {
          const policy = {
            version: 1 as const,
            workspace: { roots: ['/srv/repo'] },
            tools: { tool: { args: spec } },
          }
          const compiler = await createPlanCompiler(policy)
          const tool = compiler.policy.tools.get('tool')
          if (tool === undefined) throw new Error('no tool')
          const check = validator.getValidator(toolInputSchema(tool) as never)
          for (const call of calls) {
            const guardAccepts = compiler.checkArguments('tool', call).length === 0
            const shown = check(call).valid
            expect({ call, shown }).toEqual({ call, shown: guardAccepts })
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
