import { z } from 'zod'
import { commandPolicySchema } from '../command/command-policy.js'

const common = {
  /** Whether the argument must be present. Defaults to true. */
  required: z.boolean().optional(),
  description: z.string().optional(),
}

const stringArgSchema = z.strictObject({
  type: z.literal('string'),
  ...common,
  minLength: z.number().int().nonnegative().optional(),
  maxLength: z.number().int().nonnegative().optional(),
  /** A regular expression the whole value must match. */
  pattern: z.string().optional(),
})

const numberArgSchema = z.strictObject({
  type: z.literal('number'),
  ...common,
  integer: z.boolean().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
})

const booleanArgSchema = z.strictObject({ type: z.literal('boolean'), ...common })

const enumArgSchema = z.strictObject({
  type: z.literal('enum'),
  ...common,
  values: z.array(z.union([z.string(), z.number(), z.boolean()])).min(1),
})

const pathArgSchema = z.strictObject({
  type: z.literal('path'),
  ...common,
  /** `read` (default) or `write`; writes are refused under `workspace.readOnly`. */
  access: z.enum(['read', 'write']).default('read'),
})

const commandArgSchema = z.strictObject({ type: z.literal('command'), ...common })

const jsonArgSchema = z.strictObject({
  type: z.literal('json'),
  ...common,
  /** Largest accepted size of the value as JSON text, in bytes. */
  maxBytes: z.number().int().positive().optional(),
})

type ArgSpecInput =
  | z.input<typeof stringArgSchema>
  | z.input<typeof numberArgSchema>
  | z.input<typeof booleanArgSchema>
  | z.input<typeof enumArgSchema>
  | z.input<typeof pathArgSchema>
  | z.input<typeof commandArgSchema>
  | z.input<typeof jsonArgSchema>
  | {
      type: 'array'
      required?: boolean | undefined
      description?: string | undefined
      items: ArgSpecInput
      maxItems?: number | undefined
    }

/** The declaration of one tool argument. */
export const argSpecSchema: z.ZodType<ArgSpec, ArgSpecInput> = z.lazy(() =>
  z.discriminatedUnion('type', [
    stringArgSchema,
    numberArgSchema,
    booleanArgSchema,
    enumArgSchema,
    pathArgSchema,
    commandArgSchema,
    jsonArgSchema,
    z.strictObject({
      type: z.literal('array'),
      ...common,
      items: argSpecSchema,
      maxItems: z.number().int().nonnegative().optional(),
    }),
  ]),
)

/** What one tool may be called with. */
export const toolPolicySchema = z.strictObject({
  description: z.string().optional(),
  /** Declared arguments; any other argument is rejected. */
  args: z.record(z.string().min(1), argSpecSchema).default({}),
  /** Most calls of this tool in one plan (and one run). */
  maxCalls: z.number().int().positive().optional(),
  /** What the tool's output is: `untrusted` for anything an attacker can write. */
  output: z.strictObject({ trust: z.enum(['trusted', 'untrusted']) }).optional(),
})

/** Limits on a plan (static) and a run (dynamic). */
export const budgetsSchema = z.strictObject({
  /** Most steps in one plan. */
  maxSteps: z.number().int().positive().default(1000),
  /** Longest dependency chain, in steps. */
  maxDepth: z.number().int().positive().default(256),
  /** Most direct dependents of one step. */
  maxFanOut: z.number().int().positive().default(256),
  /** Most calls of any one tool in one plan, unless the tool sets `maxCalls`. */
  maxCallsPerTool: z.number().int().positive().optional(),
  /** Most tool calls in one run. */
  maxCalls: z.number().int().positive().optional(),
  /** Most identical calls (same tool, same arguments) in one run. */
  maxIdenticalCalls: z.number().int().positive().default(3),
  /** Most plans submitted in one run after the first. */
  maxReplans: z.number().int().nonnegative().default(5),
  /** Wall-clock limit of one run, in milliseconds. */
  deadlineMs: z.number().int().positive().optional(),
})

/** Where paths may point. */
export const workspaceSchema = z.strictObject({
  /** Folders that paths must stay inside; relative roots resolve against the policy file's folder. */
  roots: z.array(z.string().min(1)).min(1),
  /** Paths (relative to a root, or absolute) that may be read but never written. */
  readOnly: z.array(z.string().min(1)).default(['.git']),
  /** Paths (relative to a root, or absolute) that may be neither read nor written. */
  deny: z.array(z.string().min(1)).default([]),
})

/** A policy: the only place where permissions live. */
export const policySchema = z
  .strictObject({
    $schema: z.string().optional(),
    /** Free text for the policy's readers; ignored by the compiler. */
    $comment: z.union([z.string(), z.array(z.string())]).optional(),
    version: z.literal(1),
    workspace: workspaceSchema,
    tools: z.record(z.string().min(1), toolPolicySchema),
    commands: commandPolicySchema.default({ allow: [], maxLength: 8192 }),
    budgets: budgetsSchema.default({
      maxSteps: 1000,
      maxDepth: 256,
      maxFanOut: 256,
      maxIdenticalCalls: 3,
      maxReplans: 5,
    }),
  })
  .describe('An @plan policy')

export type ArgSpec =
  | z.output<typeof stringArgSchema>
  | z.output<typeof numberArgSchema>
  | z.output<typeof booleanArgSchema>
  | z.output<typeof enumArgSchema>
  | z.output<typeof pathArgSchema>
  | z.output<typeof commandArgSchema>
  | z.output<typeof jsonArgSchema>
  | {
      type: 'array'
      required?: boolean | undefined
      description?: string | undefined
      items: ArgSpec
      maxItems?: number | undefined
    }
export type ToolPolicy = z.output<typeof toolPolicySchema>
export type Budgets = z.output<typeof budgetsSchema>
export type Workspace = z.output<typeof workspaceSchema>
/** A policy as written (defaults not yet applied). */
export type PolicyInput = z.input<typeof policySchema>
/** A parsed policy with defaults applied. */
export type Policy = z.output<typeof policySchema>
