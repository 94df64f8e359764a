import { readJsonSchema } from '@plan/json'
import { checkPathLexical, type PathScope, posix } from '@plan/shell/common'
import { matchesGlob } from '../taint/match-glob.js'
import EXTRACTION_JSON_SCHEMA from './extraction-schema.generated.json' with { type: 'json' }

/** One value an extraction may return. */
export type ExtractionScalarSchema =
  | { readonly type: 'enum'; readonly values: readonly (string | number | boolean)[] }
  | {
      readonly type: 'number'
      readonly integer?: boolean
      readonly minimum?: number
      readonly maximum?: number
    }
  | { readonly type: 'boolean' }
  | { readonly type: 'string'; readonly pattern: string; readonly maxLength: number }
  | { readonly type: 'path'; readonly within?: readonly string[] }

/**
 * What an extraction step's output must be: an enum value, a number, a boolean, a short
 * string matching a pattern, a path inside the workspace (optionally `within` globs), or a
 * list of one of these. Defaults applied (`maxLength` 64, `maxItems` 16).
 */
export type ExtractionSchema =
  | ExtractionScalarSchema
  | { readonly type: 'array'; readonly items: ExtractionScalarSchema; readonly maxItems: number }

function patternOf(source: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${source})$`, 'u')
  } catch {
    return undefined
  }
}

/**
 * Reads a plan's `schema` argument (without zod, on the compiler's path, through the JSON Schema
 * generated from `extractionSchema` of `@plan/core/schemas`); undefined when it is not a valid
 * extraction schema, or when its pattern is not a regular expression.
 */
export function readExtractionSchema(value: unknown): ExtractionSchema | undefined {
  const schema = readJsonSchema<ExtractionSchema>(EXTRACTION_JSON_SCHEMA, value)
  const scalar = schema?.type === 'array' ? schema.items : schema
  return scalar?.type === 'string' && patternOf(scalar.pattern) === undefined ? undefined : schema
}

function relativeToRoot(root: string, path: string): string {
  return path === root ? '' : path.slice(root.endsWith('/') ? root.length : root.length + 1)
}

/** Whether a value is a finite number within a number schema's bounds (whole, if it says so). */
export function matchesNumberSchema(
  schema: Extract<ExtractionScalarSchema, { type: 'number' }>,
  value: unknown,
): boolean {
  return (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (schema.integer !== true || Number.isInteger(value)) &&
    (schema.minimum === undefined || value >= schema.minimum) &&
    (schema.maximum === undefined || value <= schema.maximum)
  )
}

function matchesScalar(schema: ExtractionScalarSchema, value: unknown, scope: PathScope): boolean {
  switch (schema.type) {
    case 'enum':
      return schema.values.some((allowed) => allowed === value)
    case 'number':
      return matchesNumberSchema(schema, value)
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
      const root = posix.normalize(scope.roots[0] ?? '/')
      const inside = relativeToRoot(root, checked.resolved)
      return schema.within.some((glob) => matchesGlob(inside, glob))
    }
  }
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
