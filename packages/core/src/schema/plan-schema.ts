import { z } from 'zod'

import { MAX_STEP_ID_LENGTH, STEP_ID_PATTERN } from './step-id.js'

export { MAX_STEP_ID_LENGTH, STEP_ID_PATTERN }

/** A step id. */
export const stepIdSchema = z
  .string()
  .min(1)
  .max(MAX_STEP_ID_LENGTH)
  .regex(STEP_ID_PATTERN)
  .describe('Unique step id: letters, digits, "_" and "-"')

/** Any JSON value. */
export const jsonValueSchema: z.ZodType<unknown> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValueSchema),
    z.record(z.string(), jsonValueSchema),
  ]),
)

/**
 * One step of a plan: a tool call with its arguments and dependencies. An argument value
 * `{ "$ref": "<stepId>" }` or `{ "$ref": "<stepId>.output.<field>" }` reads another step's output
 * and implies a dependency on it.
 */
export const stepSchema = z
  .strictObject({
    id: stepIdSchema,
    tool: z.string().min(1).describe('Name of a tool the policy allows'),
    args: z
      .record(z.string(), jsonValueSchema)
      .optional()
      .describe('Arguments; { "$ref": "<stepId>.output.<field>" } reads another step'),
    depends_on: z.array(stepIdSchema).optional().describe('Ids of steps that must finish first'),
    dependsOn: z.array(stepIdSchema).optional().describe('Same as depends_on'),
    description: z.string().optional().describe('Why this step is needed'),
  })
  .describe('A tool call in a plan')

/** A plan: `{ steps }` (with an optional goal), or a bare array of steps. */
export const planSchema = z.union([
  z
    .strictObject({ goal: z.string().optional(), steps: z.array(stepSchema) })
    .describe('A plan of tool calls'),
  z.array(stepSchema),
])

/** The object form of a plan, the one to ask a planner model for. */
export const planObjectSchema = z.strictObject({
  goal: z.string().optional().describe('What the plan achieves'),
  steps: z.array(stepSchema),
})

/** One step of a plan: `{ id, tool, args?, depends_on? }` (`dependsOn` is read too). */
export type PlanStep = z.input<typeof stepSchema>
/** A plan as a planner writes it: `{ steps }` or a bare array of steps. */
export type Plan = z.input<typeof planSchema>
