import { checkPathLexical } from '../checks/path-scope.js'
import { matchesGlob } from '../taint/match-glob.js'
import type { PathScope } from '../types/path-scope.js'
import { isPlainObject } from '../util/is-plain-object.js'
import { posix } from '../util/posix-path.js'

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

const KEYS: Record<string, readonly string[]> = {
  enum: ['type', 'values'],
  number: ['type', 'integer', 'minimum', 'maximum'],
  boolean: ['type'],
  string: ['type', 'pattern', 'maxLength'],
  path: ['type', 'within'],
  array: ['type', 'items', 'maxItems'],
}

function patternOf(source: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${source})$`, 'u')
  } catch {
    return undefined
  }
}

const isInt = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
const isOptionalNumber = (value: unknown): value is number | undefined =>
  value === undefined || (typeof value === 'number' && Number.isFinite(value))

function readScalar(value: Record<string, unknown>): ExtractionScalarSchema | undefined {
  switch (value.type) {
    case 'enum': {
      const values = value.values
      if (!Array.isArray(values) || values.length === 0 || values.length > 256) return undefined
      const ok = values.every(
        (item) =>
          (typeof item === 'string' && item.length <= 256) ||
          (typeof item === 'number' && Number.isFinite(item)) ||
          typeof item === 'boolean',
      )
      return ok ? { type: 'enum', values: [...values] } : undefined
    }
    case 'number': {
      const { integer, minimum, maximum } = value
      if (integer !== undefined && typeof integer !== 'boolean') return undefined
      if (!isOptionalNumber(minimum) || !isOptionalNumber(maximum)) return undefined
      return {
        type: 'number',
        ...(integer === undefined ? {} : { integer }),
        ...(minimum === undefined ? {} : { minimum }),
        ...(maximum === undefined ? {} : { maximum }),
      }
    }
    case 'boolean':
      return { type: 'boolean' }
    case 'string': {
      const { pattern, maxLength = 64 } = value
      if (typeof pattern !== 'string' || pattern === '' || patternOf(pattern) === undefined)
        return undefined
      return isInt(maxLength, 1, 1024) ? { type: 'string', pattern, maxLength } : undefined
    }
    case 'path': {
      const within = value.within
      if (within === undefined) return { type: 'path' }
      const ok =
        Array.isArray(within) &&
        within.length <= 64 &&
        within.every((glob): glob is string => typeof glob === 'string' && glob !== '')
      return ok ? { type: 'path', within: [...within] } : undefined
    }
    default:
      return undefined
  }
}

/**
 * Reads a plan's `schema` argument (without zod, on the compiler's path); undefined when it is
 * not a valid extraction schema. `extractionSchema` in `@plan/core/schemas` is its zod twin.
 */
export function readExtractionSchema(value: unknown): ExtractionSchema | undefined {
  if (!isPlainObject(value) || typeof value.type !== 'string') return undefined
  const keys = KEYS[value.type]
  if (keys === undefined || !Object.keys(value).every((key) => keys.includes(key))) return undefined
  if (value.type !== 'array') return readScalar(value)
  const { items, maxItems = 16 } = value
  if (!isPlainObject(items) || items.type === 'array' || !isInt(maxItems, 0, 256)) return undefined
  const itemKeys = typeof items.type === 'string' ? KEYS[items.type] : undefined
  if (itemKeys === undefined || !Object.keys(items).every((key) => itemKeys.includes(key)))
    return undefined
  const scalar = readScalar(items)
  return scalar === undefined ? undefined : { type: 'array', items: scalar, maxItems }
}

function relativeToRoot(root: string, path: string): string {
  return path === root ? '' : path.slice(root.endsWith('/') ? root.length : root.length + 1)
}

function matchesScalar(schema: ExtractionScalarSchema, value: unknown, scope: PathScope): boolean {
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
