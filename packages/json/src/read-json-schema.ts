import { defineValue } from './define-value.js'
import { isForbiddenKey } from './forbidden-key.js'
import { isPlainObject } from './is-plain-object.js'

/** A JSON Schema as `z.toJSONSchema` writes it for plain data. */
export type JsonSchema = { readonly [keyword: string]: unknown }

/** Where a value does not match its schema. */
export interface SchemaMismatch {
  readonly path: readonly (string | number)[]
  readonly message: string
}

/** The result of {@link matchJsonSchema}: a copy of the value, or where it does not match. */
export type SchemaMatch<T = unknown> =
  | { readonly success: true; readonly value: T }
  | { readonly success: false; readonly mismatch: SchemaMismatch }

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

function isObject(value: unknown, check: boolean): value is Record<string, unknown> {
  if (!check) return isPlainObject(value)
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function hasType(value: unknown, type: unknown, check: boolean): boolean {
  if (Array.isArray(type)) return type.some((one) => hasType(value, one, check))
  switch (type) {
    case 'object':
      return isObject(value, check)
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

/** Why a number or string value misses the bounds or the pattern of its schema, if it does. */
function missedBound(schema: JsonSchema, value: unknown): string | undefined {
  const { minimum, maximum, exclusiveMinimum, minLength, maxLength, pattern } = schema
  if (typeof value === 'number') {
    if (typeof minimum === 'number' && value < minimum) return `expected at least ${minimum}`
    if (typeof maximum === 'number' && value > maximum) return `expected at most ${maximum}`
    if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum)
      return `expected more than ${exclusiveMinimum}`
  }
  if (typeof value !== 'string') return undefined
  if (typeof minLength === 'number' && value.length < minLength) return 'too short'
  if (typeof maxLength === 'number' && value.length > maxLength) return 'too long'
  if (typeof pattern !== 'string') return undefined
  let regex = patterns.get(pattern)
  if (regex === undefined) {
    regex = new RegExp(pattern)
    patterns.set(pattern, regex)
  }
  return regex.test(value) ? undefined : 'does not match the pattern'
}

/** Why a value misses its schema's type, `const` or `enum`, if it does. */
function missedValue(schema: JsonSchema, value: unknown, check: boolean): string | undefined {
  if (schema.type !== undefined && !hasType(value, schema.type, check))
    return `expected ${String(schema.type)}`
  if ('const' in schema && value !== schema.const) return `expected ${JSON.stringify(schema.const)}`
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    return `expected one of ${schema.enum.map(String).join(', ')}`
  return undefined
}

/**
 * Reads a value with a schema. Two modes: `parse` gives what zod's `parse` would, else declines;
 * `check` (a saved state) keeps what the schema leaves open (`{}`, keys such as `__proto__`, an
 * optional property set to undefined) and throws for a keyword it does not read.
 */
class Reader {
  path: (string | number)[] = []
  message = ''

  constructor(
    private readonly root: JsonSchema,
    private readonly check: boolean,
  ) {}

  private fail(message: string): typeof FAIL {
    this.path = []
    this.message = message
    return FAIL
  }

  private failAt(key: string | number, message: string): typeof FAIL {
    this.fail(message)
    return this.at(key)
  }

  // The path is built as a failure unwinds, so a value that matches costs no arrays.
  private at(key: string | number): typeof FAIL {
    this.path.unshift(key)
    return FAIL
  }

  read(schema: JsonSchema, value: unknown): Read {
    const keywords = Object.keys(schema)
    for (const keyword of keywords) {
      if (KEYWORDS.has(keyword)) continue
      if (this.check) throw new TypeError(`unsupported JSON Schema keyword ${keyword}`)
      return this.fail(`unsupported keyword ${keyword}`)
    }
    if (this.check && keywords.every((keyword) => ANNOTATIONS.includes(keyword))) return value
    const branches = schema.anyOf ?? schema.oneOf
    if (typeof schema.$ref === 'string' || Array.isArray(branches)) {
      // Beside a reference or a list of branches, only annotations (what zod writes).
      if (keywords.filter((keyword) => !ANNOTATIONS.includes(keyword)).length !== 1)
        return this.fail('unsupported schema')
      if (typeof schema.$ref === 'string') return this.readRef(schema.$ref, value)
      return Array.isArray(branches) ? this.readFirst(branches, value) : this.fail('no branches')
    }
    const missed = missedValue(schema, value, this.check) ?? missedBound(schema, value)
    if (missed !== undefined) return this.fail(missed)
    if (Array.isArray(value)) return this.readArray(schema, value)
    if (isObject(value, this.check)) return this.readObject(schema, value)
    if (typeof value === 'object' && value !== null) return this.fail('not plain data')
    return value === undefined ? this.fail('required') : value
  }

  private readRef(ref: string, value: unknown): Read {
    const target = ref === '#' ? this.root : /^#\/\$defs\/([^/~]+)$/.exec(ref)?.[1]
    if (typeof target !== 'string')
      return target === undefined ? this.fail('unknown reference') : this.read(target, value)
    const defs = subschema(this.root.$defs)
    const found =
      defs !== undefined && Object.hasOwn(defs, target) ? subschema(defs[target]) : undefined
    return found === undefined ? this.fail('unknown reference') : this.read(found, value)
  }

  // The first branch that reads the value decides, as a zod union does.
  private readFirst(branches: readonly unknown[], value: unknown): Read {
    for (const branch of branches) {
      const schema = subschema(branch)
      const read = schema === undefined ? FAIL : this.read(schema, value)
      if (read !== FAIL) return read
    }
    return this.fail('matches none of the allowed shapes')
  }

  private readArray(schema: JsonSchema, value: readonly unknown[]): Read {
    const { minItems, maxItems } = schema
    if (typeof minItems === 'number' && value.length < minItems) return this.fail('too few items')
    if (typeof maxItems === 'number' && value.length > maxItems) return this.fail('too many items')
    const items = schema.items === undefined ? {} : subschema(schema.items)
    if (items === undefined) return this.fail('unsupported schema')
    const out: unknown[] = []
    for (let index = 0; index < value.length; index += 1) {
      if (!Object.hasOwn(value, index)) return this.failAt(index, 'required')
      const item = this.read(items, value[index])
      if (item === FAIL) return this.at(index)
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
    if (properties === undefined || names === undefined || !Array.isArray(required))
      return this.fail('unsupported schema')
    for (const key of required)
      if (!Object.hasOwn(value, key) || value[key] === undefined)
        return this.failAt(key, 'required')
    const out: Record<string, unknown> = {}
    // Known properties first, in the schema's order (the order zod gives them), defaults filled.
    for (const [key, entry] of Object.entries(properties)) {
      const property = subschema(entry)
      if (property === undefined) return this.failAt(key, 'unsupported schema')
      if (!Object.hasOwn(value, key) || (this.check && value[key] === undefined)) {
        if ('default' in property) out[key] = structuredClone(property.default)
        continue
      }
      const read = this.read(property, value[key])
      if (read === FAIL) return this.at(key)
      out[key] = read
    }
    for (const key of Object.keys(value)) {
      if (Object.hasOwn(properties, key)) continue
      // Keys that reach a prototype are left to zod's own checks, or kept as data in a check.
      if (otherwise === undefined || (!this.check && isForbiddenKey(key)))
        return this.failAt(key, 'not allowed')
      if (this.read(names, key) === FAIL) return this.at(key)
      const read = this.read(otherwise, value[key])
      if (read === FAIL) return this.at(key)
      // Plain assignment is faster; only `__proto__` would reach a setter on a fresh object.
      if (key === '__proto__') defineValue(out, key, read)
      else out[key] = read
    }
    return out
  }
}

// A value read with a schema, as the type the caller names for it: this module's one unchecked claim.
function described<T>(read: unknown): T {
  return read as T
}

/**
 * Reads `value` with a JSON Schema that `z.toJSONSchema(schema, { io: 'input' })` wrote: a fresh
 * copy with the schema's defaults filled in, as `schema.parse(value)` gives it, or `undefined`
 * when the value does not match or the schema uses a keyword this reader does not know, so the
 * zod schema must decide. `value` must be plain JSON (no getters, no cycles). `T` is the output
 * type of that zod schema: the caller's claim, which a test of each generated schema pins.
 */
export function readJsonSchema<T>(schema: JsonSchema, value: unknown): T | undefined {
  const read = new Reader(schema, false).read(schema, value)
  return read === FAIL ? undefined : described<T>(read)
}

/**
 * Checks `value` against a JSON Schema and answers a copy of it (objects and arrays the schema
 * describes are copied; values under `{}` are kept as they are), so later reads never run a
 * getter twice. Throws `TypeError` for a schema keyword it does not know (fail closed), and
 * lets an error thrown while reading the value (a getter, a Proxy) through. `T` is the type of
 * what the schema describes, as for {@link readJsonSchema}: the caller's claim.
 */
export function matchJsonSchema<T = unknown>(schema: JsonSchema, value: unknown): SchemaMatch<T> {
  const reader = new Reader(schema, true)
  const read = reader.read(schema, value)
  if (read !== FAIL) return { success: true, value: described<T>(read) }
  return { success: false, mismatch: { path: reader.path, message: reader.message } }
}
