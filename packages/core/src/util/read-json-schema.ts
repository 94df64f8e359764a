import { isForbiddenKey } from './forbidden-key.js'
import { isPlainObject } from './is-plain-object.js'

/** A JSON Schema as `z.toJSONSchema` writes it for plain data. */
export type JsonSchema = { readonly [keyword: string]: unknown }

const FAIL = Symbol('fail')
type Read = unknown | typeof FAIL

// Keywords read here, and annotations that change nothing; any other keyword (`format`, `not`,
// …) declines the value, so a schema that asks for more than is read never passes silently.
const ANNOTATIONS = ['$schema', '$defs', 'description', 'readOnly', 'default']
const KEYWORDS = new Set([
  ...ANNOTATIONS,
  '$ref',
  'anyOf',
  'oneOf',
  'type',
  'const',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'items',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
])

const patterns = new Map<string, RegExp>()

/** A sub-schema: an object, or `true` (anything); `false` and anything else read nothing. */
function subschema(value: unknown): JsonSchema | undefined {
  if (value === true) return {}
  return isPlainObject(value) ? value : undefined
}

function hasType(value: unknown, type: unknown): boolean {
  if (Array.isArray(type)) return type.some((one) => hasType(value, one))
  switch (type) {
    case 'object':
      return isPlainObject(value)
    case 'array':
      return Array.isArray(value)
    case 'string':
      return typeof value === 'string'
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'integer':
      return Number.isSafeInteger(value)
    case 'boolean':
      return typeof value === 'boolean'
    case 'null':
      return value === null
    default:
      return false
  }
}

/** Whether a number or string value meets the bounds and the pattern of its schema. */
function meetsBounds(schema: JsonSchema, value: unknown): boolean {
  const { minimum, maximum, exclusiveMinimum, minLength, maxLength, pattern } = schema
  if (typeof value === 'number') {
    if (typeof minimum === 'number' && value < minimum) return false
    if (typeof maximum === 'number' && value > maximum) return false
    if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum) return false
  }
  if (typeof value !== 'string') return true
  if (typeof minLength === 'number' && value.length < minLength) return false
  if (typeof maxLength === 'number' && value.length > maxLength) return false
  if (typeof pattern !== 'string') return true
  let regex = patterns.get(pattern)
  if (regex === undefined) {
    regex = new RegExp(pattern)
    patterns.set(pattern, regex)
  }
  return regex.test(value)
}

class Reader {
  constructor(private readonly root: JsonSchema) {}

  read(schema: JsonSchema, value: unknown): Read {
    const keywords = Object.keys(schema)
    if (keywords.some((keyword) => !KEYWORDS.has(keyword))) return FAIL
    const branches = schema.anyOf ?? schema.oneOf
    if (typeof schema.$ref === 'string' || Array.isArray(branches)) {
      // Beside a reference or a list of branches, only annotations (what zod writes).
      if (keywords.filter((keyword) => !ANNOTATIONS.includes(keyword)).length !== 1) return FAIL
      if (typeof schema.$ref === 'string') return this.readRef(schema.$ref, value)
      return Array.isArray(branches) ? this.readFirst(branches, value) : FAIL
    }
    if (schema.type !== undefined && !hasType(value, schema.type)) return FAIL
    if ('const' in schema && value !== schema.const) return FAIL
    if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return FAIL
    if (!meetsBounds(schema, value)) return FAIL
    if (Array.isArray(value)) return this.readArray(schema, value)
    if (isPlainObject(value)) return this.readObject(schema, value)
    if (typeof value === 'object' && value !== null) return FAIL
    return value === undefined ? FAIL : value
  }

  private readRef(ref: string, value: unknown): Read {
    const target = ref === '#' ? this.root : /^#\/\$defs\/([^/~]+)$/.exec(ref)?.[1]
    if (typeof target !== 'string') return target === undefined ? FAIL : this.read(target, value)
    const defs = subschema(this.root.$defs)
    const found =
      defs !== undefined && Object.hasOwn(defs, target) ? subschema(defs[target]) : undefined
    return found === undefined ? FAIL : this.read(found, value)
  }

  // The first branch that reads the value decides, as a zod union does.
  private readFirst(branches: readonly unknown[], value: unknown): Read {
    for (const branch of branches) {
      const schema = subschema(branch)
      const read = schema === undefined ? FAIL : this.read(schema, value)
      if (read !== FAIL) return read
    }
    return FAIL
  }

  private readArray(schema: JsonSchema, value: readonly unknown[]): Read {
    const { minItems, maxItems } = schema
    if (typeof minItems === 'number' && value.length < minItems) return FAIL
    if (typeof maxItems === 'number' && value.length > maxItems) return FAIL
    const items = schema.items === undefined ? {} : subschema(schema.items)
    if (items === undefined) return FAIL
    const out: unknown[] = []
    for (let index = 0; index < value.length; index += 1) {
      if (!Object.hasOwn(value, index)) return FAIL
      const item = this.read(items, value[index])
      if (item === FAIL) return FAIL
      out.push(item)
    }
    return out
  }

  private readObject(schema: JsonSchema, value: Record<string, unknown>): Read {
    const properties = subschema(schema.properties ?? {})
    const required = schema.required ?? []
    const additional = schema.additionalProperties
    const otherwise = additional === undefined ? {} : subschema(additional)
    const names = schema.propertyNames === undefined ? {} : subschema(schema.propertyNames)
    if (properties === undefined || names === undefined || !Array.isArray(required)) return FAIL
    const out: Record<string, unknown> = {}
    // Known properties first, in the schema's order (the order zod gives them), defaults filled.
    for (const [key, entry] of Object.entries(properties)) {
      const property = subschema(entry)
      if (property === undefined) return FAIL
      if (!Object.hasOwn(value, key)) {
        if (required.includes(key)) return FAIL
        if ('default' in property) out[key] = structuredClone(property.default)
        continue
      }
      const read = this.read(property, value[key])
      if (read === FAIL) return FAIL
      out[key] = read
    }
    for (const key of Object.keys(value)) {
      if (Object.hasOwn(properties, key)) continue
      // Keys that reach a prototype are left to the schema's own checks (zod refines them).
      if (otherwise === undefined || isForbiddenKey(key)) return FAIL
      if (this.read(names, key) === FAIL) return FAIL
      const read = this.read(otherwise, value[key])
      if (read === FAIL) return FAIL
      out[key] = read
    }
    return out
  }
}

/**
 * Reads `value` with a JSON Schema that `z.toJSONSchema(schema, { io: 'input' })` wrote: a fresh
 * copy with the schema's defaults filled in, as `schema.parse(value)` gives it, or `undefined`
 * when the value does not match or the schema uses a keyword this reader does not know, so the
 * zod schema must decide. `value` must be plain JSON (no getters, no cycles). `T` is the output
 * type of that zod schema: the caller's claim, which a test of each generated schema pins.
 */
export function readJsonSchema<T>(schema: JsonSchema, value: unknown): T | undefined {
  const read = new Reader(schema).read(schema, value)
  return read === FAIL ? undefined : (read as T)
}
