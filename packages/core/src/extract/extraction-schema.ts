import { relative, sep } from 'node:path'
import { z } from 'zod'
import { checkPathLexical, type PathScope } from '../checks/path-scope.js'
import { matchesGlob } from '../taint/match-glob.js'

const scalarSchemas = [
  z.strictObject({
    type: z.literal('enum'),
    values: z
      .array(z.union([z.string().max(256), z.number(), z.boolean()]))
      .min(1)
      .max(256),
  }),
  z.strictObject({
    type: z.literal('number'),
    integer: z.boolean().optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
  }),
  z.strictObject({ type: z.literal('boolean') }),
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
 * What an extraction step's output must be: an enum value, a number, a boolean, a short
 * string matching a pattern, a path inside the workspace, or a list of one of these.
 */
export const extractionSchema = z.discriminatedUnion('type', [
  ...scalarSchemas,
  z.strictObject({
    type: z.literal('array'),
    items: scalarSchema,
    maxItems: z.number().int().nonnegative().max(256).default(16),
  }),
])

/** An extraction step's output schema, defaults applied. */
export type ExtractionSchema = z.output<typeof extractionSchema>
/** An extraction step's output schema, as written in a plan. */
export type ExtractionSchemaInput = z.input<typeof extractionSchema>
type ScalarSchema = z.output<typeof scalarSchema>

function patternOf(source: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${source})$`, 'u')
  } catch {
    return undefined
  }
}

function matchesScalar(schema: ScalarSchema, value: unknown, scope: PathScope): boolean {
  switch (schema.type) {
    case 'enum':
      return schema.values.some((allowed) => allowed === value)
    case 'number':
      return (
        typeof value === 'number' &&
        Number.isFinite(value) &&
        (schema.integer !== true || Number.isInteger(value)) &&
        (schema.minimum === undefined || value >= schema.minimum) &&
        (schema.maximum === undefined || value <= schema.maximum)
      )
    case 'boolean':
      return typeof value === 'boolean'
    case 'string':
      return (
        typeof value === 'string' &&
        value.length <= schema.maxLength &&
        patternOf(schema.pattern)?.test(value) === true
      )
    case 'path': {
      if (typeof value !== 'string' || value.length > 4096) return false
      const checked = checkPathLexical(value, scope)
      if (!checked.allowed) return false
      if (schema.within === undefined) return true
      const inside = relative(scope.roots[0] ?? '', checked.resolved)
        .split(sep)
        .join('/')
      return schema.within.some((glob) => matchesGlob(inside, glob))
    }
  }
}

/** Parses a plan's `schema` argument; undefined when it is not a valid extraction schema. */
export function readExtractionSchema(value: unknown): ExtractionSchema | undefined {
  const parsed = extractionSchema.safeParse(value)
  if (!parsed.success) return undefined
  const schema = parsed.data
  const scalar = schema.type === 'array' ? schema.items : schema
  if (scalar.type === 'string' && patternOf(scalar.pattern) === undefined) return undefined
  return schema
}

/** Whether an extracted value has exactly the shape its schema allows (fail closed). */
export function matchesExtractionSchema(
  schema: ExtractionSchema,
  value: unknown,
  scope: PathScope,
): boolean {
  if (schema.type !== 'array') return matchesScalar(schema, value, scope)
  return (
    Array.isArray(value) &&
    value.length <= schema.maxItems &&
    value.every((item) => matchesScalar(schema.items, item, scope))
  )
}
