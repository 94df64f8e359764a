import { defineValue } from '../util/json-copy.js'

/** A JSON Schema (the subset that `z.toJSONSchema` writes for plain data). */
export type JsonSchema = { readonly [keyword: string]: unknown }

type Path = (string | number)[]

/** Where a value does not match its schema. */
export interface SchemaMismatch {
  readonly path: readonly (string | number)[]
  readonly message: string
}

/** The result of {@link matchJsonSchema}: a copy of the value, or where it does not match. */
export type SchemaMatch =
  | { readonly success: true; readonly value: unknown }
  | { readonly success: false; readonly mismatch: SchemaMismatch }

// Keywords this reader enforces or may ignore (annotations); any other one is refused, so a
// schema that asks for more than is checked can never pass silently.
const KEYWORDS = new Set([
  '$schema',
  'readOnly',
  'description',
  'type',
  'const',
  'enum',
  'anyOf',
  'minimum',
  'maximum',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'items',
])

class Mismatch extends Error {
  readonly path: Path
  constructor(path: Path, message: string) {
    super(message)
    this.path = path
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A sub-schema: an object, or `true` (anything); else not a schema this reader knows. */
function subschema(value: unknown): JsonSchema {
  if (value === true) return {}
  if (!isObject(value))
    throw new TypeError('unsupported JSON Schema: a sub-schema is not an object')
  return value
}

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'object':
      return isObject(value)
    case 'array':
      return Array.isArray(value)
    case 'string':
      return typeof value === 'string'
    case 'boolean':
      return typeof value === 'boolean'
    case 'null':
      return value === null
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'integer':
      return Number.isInteger(value)
    default:
      throw new TypeError(`unsupported JSON Schema type ${JSON.stringify(type)}`)
  }
}

function checkScalar(schema: JsonSchema, value: unknown, path: Path): void {
  if (schema.type !== undefined && !hasType(value, schema.type))
    throw new Mismatch(path, `expected ${String(schema.type)}`)
  if ('const' in schema && value !== schema.const)
    throw new Mismatch(path, `expected ${JSON.stringify(schema.const)}`)
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    throw new Mismatch(path, `expected one of ${schema.enum.map(String).join(', ')}`)
  if (typeof schema.minimum === 'number' && Number(value) < schema.minimum)
    throw new Mismatch(path, `expected at least ${schema.minimum}`)
  if (typeof schema.maximum === 'number' && Number(value) > schema.maximum)
    throw new Mismatch(path, `expected at most ${schema.maximum}`)
}

function copyObject(schema: JsonSchema, value: Record<string, unknown>, path: Path): object {
  const properties = subschema(schema.properties ?? {})
  const required = (Array.isArray(schema.required) ? schema.required : []).filter(
    (name): name is string => typeof name === 'string',
  )
  const additional = schema.additionalProperties
  const otherwise =
    typeof additional === 'boolean' || additional === undefined ? additional : subschema(additional)
  for (const name of required)
    if (!Object.hasOwn(value, name)) throw new Mismatch([...path, name], 'required')
  const out = {}
  for (const key of Object.keys(value)) {
    const known = Object.hasOwn(properties, key) ? subschema(properties[key]) : undefined
    const rule = known ?? otherwise
    if (rule === false) throw new Mismatch([...path, key], 'not allowed')
    if (known === undefined && schema.propertyNames !== undefined)
      walk(subschema(schema.propertyNames), key, [...path, key])
    const item = value[key]
    // An optional property may be undefined, as zod reads it; a required one may not.
    if (item === undefined && known !== undefined) {
      if (required.includes(key)) throw new Mismatch([...path, key], 'required')
      continue
    }
    defineValue(
      out,
      key,
      rule === undefined || rule === true ? item : walk(rule, item, [...path, key]),
    )
  }
  return out
}

function walk(schema: JsonSchema, value: unknown, path: Path): unknown {
  for (const keyword of Object.keys(schema))
    if (!KEYWORDS.has(keyword)) throw new TypeError(`unsupported JSON Schema keyword ${keyword}`)
  if (Array.isArray(schema.anyOf)) {
    for (const branch of schema.anyOf) {
      try {
        return walk(subschema(branch), value, path)
      } catch (error) {
        if (!(error instanceof Mismatch)) throw error
      }
    }
    throw new Mismatch(path, 'matches none of the allowed shapes')
  }
  checkScalar(schema, value, path)
  // checkScalar has refused a value of another type.
  if (schema.type === 'object' && isObject(value)) return copyObject(schema, value, path)
  if (schema.type === 'array' && Array.isArray(value)) {
    const items = schema.items === undefined ? undefined : subschema(schema.items)
    return value.map((item, index) =>
      items === undefined ? item : walk(items, item, [...path, index]),
    )
  }
  return value
}

/**
 * Checks `value` against a JSON Schema and answers a copy of it (objects and arrays the schema
 * describes are copied; values under `{}` are kept as they are), so later reads never run a
 * getter twice. Throws `TypeError` for a schema keyword it does not know (fail closed), and
 * lets an error thrown while reading the value (a getter, a Proxy) through.
 */
export function matchJsonSchema(schema: JsonSchema, value: unknown): SchemaMatch {
  try {
    return { success: true, value: walk(schema, value, []) }
  } catch (error) {
    if (!(error instanceof Mismatch)) throw error
    return { success: false, mismatch: { path: error.path, message: error.message } }
  }
}
