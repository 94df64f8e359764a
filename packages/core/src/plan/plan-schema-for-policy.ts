import { z } from 'zod'
import { hasPattern, LinearRegExp, policyPattern } from '../policy/policy-pattern.js'
import { resolvePolicy } from '../policy/resolve-policy.js'
import { jsonValueSchema, stepIdSchema } from '../schema/plan-schema.js'
import type { ArgSpec, PolicyInput } from '../schema/policy-schema.js'
import type { PlanObject } from '../types/plan-object.js'
import type { ResolvedPolicy } from '../types/resolved-policy.js'

const reference = z
  .strictObject({
    $ref: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\.output(\.[^.]+)*)?$/)
      .describe('"<stepId>" or "<stepId>.output.<field>": the output of an earlier step'),
  })
  .describe('The output of another step, known only at run time')

function valueSchema(spec: ArgSpec): z.ZodType {
  switch (spec.type) {
    case 'string': {
      let schema = z.string()
      if (spec.minLength !== undefined) schema = schema.min(spec.minLength)
      if (spec.maxLength !== undefined) schema = schema.max(spec.maxLength)
      if (hasPattern(spec)) schema = schema.regex(new LinearRegExp(policyPattern(spec)))
      return schema
    }
    case 'number': {
      let schema = z.number()
      if (spec.integer === true) schema = schema.int()
      if (spec.minimum !== undefined) schema = schema.min(spec.minimum)
      if (spec.maximum !== undefined) schema = schema.max(spec.maximum)
      return schema
    }
    case 'boolean':
      return z.boolean()
    case 'enum': {
      const [first, ...rest] = spec.values
      if (first === undefined) return z.never()
      return rest.length === 0
        ? z.literal(first)
        : z.union([z.literal(first), ...rest.map((value) => z.literal(value))])
    }
    case 'path':
      return z
        .string()
        .min(1)
        .describe(`A path inside the workspace, relative to its root (${spec.access} access)`)
    case 'command':
      return z
        .string()
        .min(1)
        .describe(
          'One command of an allowed program, with literal arguments (no pipes, no redirections, no $)',
        )
    case 'json':
      return jsonValueSchema
    case 'array': {
      const schema = z.array(argumentSchema(spec.items))
      return spec.maxItems === undefined ? schema : schema.max(spec.maxItems)
    }
  }
}

function argumentSchema(spec: ArgSpec): z.ZodType {
  const schema = z.union([valueSchema(spec), reference])
  return spec.description === undefined ? schema : schema.describe(spec.description)
}

/**
 * A plan schema narrowed to one policy: each step names one of the policy's tools and only its
 * declared arguments, with their declared types (or a `$ref`). Ask a planner model for this
 * shape with structured output, so it cannot even express an unknown tool or argument. The
 * compiler still checks everything (paths, commands, references, cycles, budgets).
 *
 * @example
 * ```ts
 * const { output } = await generateText({ model, output: Output.object({ schema: planSchemaForPolicy(policy) }), prompt })
 * ```
 */
export function planSchemaForPolicy(policy: PolicyInput | ResolvedPolicy): z.ZodType<PlanObject> {
  const resolved = resolvePolicy(policy)
  const steps: z.ZodObject[] = []
  for (const [name, tool] of resolved.tools) {
    const shape: Record<string, z.ZodType> = {}
    let required = false
    for (const [argument, spec] of Object.entries(tool.args)) {
      const schema = argumentSchema(spec)
      shape[argument] = spec.required === false ? schema.optional() : schema
      if (spec.required !== false) required = true
    }
    const args = z.strictObject(shape)
    const step = z.strictObject({
      id: stepIdSchema.describe('Unique step id: letters, digits, "_" and "-"'),
      tool: z.literal(name),
      args: required ? args : args.optional(),
      depends_on: z.array(stepIdSchema).optional().describe('Ids of steps that must finish first'),
      description: z.string().optional().describe('Why this step is needed'),
    })
    steps.push(tool.description === undefined ? step : step.describe(tool.description))
  }
  const [first, ...rest] = steps
  const item =
    first === undefined
      ? z.never()
      : rest.length === 0
        ? first
        : z.discriminatedUnion('tool', [first, ...rest])
  return z.strictObject({
    goal: z.string().optional().describe('What the plan achieves'),
    steps: z.array(item).max(resolved.policy.budgets.maxSteps),
  }) as unknown as z.ZodType<PlanObject>
}
