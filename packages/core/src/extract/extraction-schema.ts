import { z } from 'zod'
import { declassifyBooleanSchema, declassifyNumberSchema } from '../schema/policy-schema.js'

const scalarSchemas = [
  z.strictObject({
    type: z.literal('enum'),
    values: z
      .array(z.union([z.string().max(256), z.number(), z.boolean()]))
      .min(1)
      .max(256),
  }),
  declassifyNumberSchema,
  declassifyBooleanSchema,
  z.strictObject({
    type: z.literal('string'),
    /** Required: the whole value must match. A free string is not narrow. */
    pattern: z.string().min(1),
    maxLength: z.number().int().positive().max(1024).default(64),
  }),
  /**
   * A path that resolves inside the workspace (checked lexically, then on disk when used);
   * with `within`, only under these globs relative to the first root (`src/**`).
   */
  z.strictObject({
    type: z.literal('path'),
    within: z.array(z.string().min(1)).max(64).optional(),
  }),
] as const

const scalarSchema = z.discriminatedUnion('type', [...scalarSchemas])

/**
 * The zod twin of `readExtractionSchema` (for JSON Schema, editors): an extraction step's output is
 * an enum value, number, boolean, pattern-matched short string, workspace path, or a list of such.
 */
export const extractionSchema = z.discriminatedUnion('type', [
  ...scalarSchemas,
  z.strictObject({
    type: z.literal('array'),
    items: scalarSchema,
    maxItems: z.number().int().nonnegative().max(256).default(16),
  }),
])

/** An extraction step's output schema, as written in a plan. */
export type ExtractionSchemaInput = z.input<typeof extractionSchema>
