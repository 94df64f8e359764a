import { DEFAULT_READ_ONLY } from '../schema/default-read-only.js'
import type { Policy } from '../schema/policy-schema.js'
import { isForbiddenKey } from '../util/forbidden-key.js'
import { valueAt } from '../util/item-at.js'

// A zod-free reading of the common, valid policy, so that a compiler starts without loading zod.
// It accepts a subset of what `policySchema` accepts and returns exactly what `policySchema.parse`
// returns for it (defaults applied); anything else (an unknown key, an unusual value, an error)
// gets `undefined`, and the caller asks `policySchema` for the verdict and the issues. The tests
// compare both on fixtures and generated policies, so a field added to the schema but not here
// only costs the fast path, never changes a result.

type Rule =
  | {
      readonly kind: 'string'
      readonly min?: number
      readonly max?: number
      readonly pattern?: RegExp
    }
  | {
      readonly kind: 'number'
      readonly int?: boolean
      readonly min?: number
      readonly above?: number
      readonly max?: number
    }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'oneOf'; readonly values: readonly unknown[] }
  | { readonly kind: 'array'; readonly items: Rule; readonly min?: number }
  | { readonly kind: 'record'; readonly values: Rule }
  | { readonly kind: 'object'; readonly fields: Readonly<Record<string, Field>> }
  | { readonly kind: 'either'; readonly rules: readonly Rule[] }
  | { readonly kind: 'byType'; readonly variants: () => Readonly<Record<string, Rule>> }
  // Any value: the input is plain JSON already (`readPolicyJson`).
  | { readonly kind: 'json' }

type Field = { readonly rule: Rule; readonly fallback?: () => unknown; readonly required?: true }

const FAIL = Symbol('fail')

const text = (min?: number, max?: number): Rule => ({ kind: 'string', min, max })
const matching = (pattern: RegExp): Rule => ({ kind: 'string', pattern })
const int = (min: number | undefined, max?: number, above?: number): Rule => ({
  kind: 'number',
  int: true,
  min,
  max,
  above,
})
const positive = (max?: number) => int(undefined, max, 0)
const nonNegative = (max?: number) => int(0, max)
const number: Rule = { kind: 'number' }
const boolean: Rule = { kind: 'boolean' }
const oneOf = (...values: unknown[]): Rule => ({ kind: 'oneOf', values })
const array = (items: Rule, min?: number): Rule => ({ kind: 'array', items, min })
const record = (values: Rule): Rule => ({ kind: 'record', values })
const object = (fields: Record<string, Field | Rule>): Rule => ({
  kind: 'object',
  fields: Object.fromEntries(
    Object.entries(fields).map(([key, field]) => [key, 'kind' in field ? { rule: field } : field]),
  ),
})
const withDefault = (rule: Rule, value: () => unknown): Field => ({ rule, fallback: value })
// A field the schema requires: without it, the schema decides (and refuses).
const need = (rule: Rule): Field => ({ rule, required: true })
const scalar: Rule = { kind: 'either', rules: [text(), number, boolean] }
const json: Rule = { kind: 'json' }
const examples = (item: Rule): Rule => object({ allow: array(item), deny: array(item) })

const common = { required: boolean, description: text(), acceptsUntrusted: boolean }

const argSpec: Rule = {
  kind: 'byType',
  variants: () => ({
    string: object({
      type: text(),
      ...common,
      minLength: nonNegative(),
      maxLength: nonNegative(),
      pattern: text(),
      format: oneOf('url'),
      schemes: array(oneOf('https', 'http'), 1),
      hosts: array(text(1, 253)),
    }),
    number: object({ type: text(), ...common, integer: boolean, minimum: number, maximum: number }),
    boolean: object({ type: text(), ...common }),
    enum: object({ type: text(), ...common, values: need(array(scalar, 1)) }),
    path: object({
      type: text(),
      ...common,
      access: withDefault(oneOf('read', 'write'), () => 'read'),
    }),
    command: object({ type: text(), ...common }),
    json: object({ type: text(), ...common, maxBytes: positive() }),
    array: object({ type: text(), ...common, items: need(argSpec), maxItems: nonNegative() }),
  }),
}

const declassify: Rule = {
  kind: 'byType',
  variants: () => ({
    number: object({ type: text(), integer: boolean, minimum: number, maximum: number }),
    boolean: object({ type: text() }),
    enum: object({ type: text(), values: need(array(scalar, 1)) }),
    string: object({
      type: text(),
      pattern: need(text(1)),
      maxLength: withDefault(positive(4096), () => 64),
    }),
    array: object({
      type: text(),
      items: need(declassify),
      maxItems: withDefault(nonNegative(4096), () => 64),
    }),
    object: object({ type: text(), properties: need(record(declassify)) }),
  }),
}

const trustLevel = oneOf('trusted', 'untrusted')

const policyRule = object({
  $schema: text(),
  $comment: { kind: 'either', rules: [text(), array(text())] },
  version: need(oneOf(1)),
  workspace: need(
    object({
      roots: need(array(text(1), 1)),
      readOnly: withDefault(array(text(1)), () => [...DEFAULT_READ_ONLY]),
      deny: withDefault(array(text(1)), () => []),
    }),
  ),
  tools: need(
    record(
      object({
        description: text(),
        args: withDefault(record(argSpec), () => ({})),
        maxCalls: positive(),
        output: object({ trust: trustLevel, declassify }),
        idempotent: boolean,
        pin: matching(/^sha256:[0-9a-f]{64}$/),
        examples: examples(record(json)),
      }),
    ),
  ),
  commands: withDefault(
    object({
      allow: withDefault(array(text(1, 255)), () => []),
      rules: record(
        object({
          subcommands: array(text(1)),
          denyFlags: array(text(1)),
          allowExec: boolean,
          allowFlags: array(text(1)),
          skipPathCheck: boolean,
          examples: examples(text(1)),
        }),
      ),
      maxLength: withDefault(positive(1_000_000), () => 8192),
    }),
    () => ({}),
  ),
  budgets: withDefault(
    object({
      maxSteps: withDefault(positive(), () => 1000),
      maxDepth: withDefault(positive(), () => 256),
      maxFanOut: withDefault(positive(), () => 256),
      maxCallsPerTool: positive(),
      maxCalls: positive(),
      maxIdenticalCalls: withDefault(positive(), () => 3),
      maxDenials: withDefault(positive(), () => 20),
      denialWindowSeconds: positive(),
      maxReplans: withDefault(nonNegative(), () => 5),
      deadlineMs: positive(),
    }),
    () => ({}),
  ),
  trust: withDefault(
    object({ defaultOutput: withDefault(trustLevel, () => 'untrusted') }),
    () => ({}),
  ),
  approval: withDefault(
    object({ requireSignature: withDefault(boolean, () => false) }),
    () => ({}),
  ),
  audit: withDefault(object({ required: withDefault(boolean, () => false) }), () => ({})),
  mcp: object({
    requirePins: withDefault(boolean, () => false),
    prompts: withDefault(array(text(1)), () => []),
    resources: withDefault(array(matching(/^[a-z][a-z0-9+.-]*$/)), () => []),
  }),
})

function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

function readNumber(rule: Extract<Rule, { kind: 'number' }>, value: unknown): unknown {
  if (typeof value !== 'number' || !Number.isFinite(value)) return FAIL
  if (rule.int === true && !Number.isSafeInteger(value)) return FAIL
  if (rule.min !== undefined && value < rule.min) return FAIL
  if (rule.above !== undefined && value <= rule.above) return FAIL
  if (rule.max !== undefined && value > rule.max) return FAIL
  return value
}

function readObject(fields: Readonly<Record<string, Field>>, value: unknown): unknown {
  if (!isRecord(value)) return FAIL
  for (const key of Object.keys(value)) if (!Object.hasOwn(fields, key)) return FAIL
  const out: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(fields)) {
    if (!Object.hasOwn(value, key)) {
      if (field.required === true) return FAIL
      if (field.fallback !== undefined) {
        const filled = read(field.rule, field.fallback())
        if (filled === FAIL) return FAIL
        out[key] = filled
      }
      continue
    }
    const parsed = read(field.rule, value[key])
    if (parsed === FAIL) return FAIL
    out[key] = parsed
  }
  return out
}

function read(rule: Rule, value: unknown): unknown {
  switch (rule.kind) {
    case 'string':
      if (typeof value !== 'string') return FAIL
      if (rule.min !== undefined && value.length < rule.min) return FAIL
      if (rule.pattern !== undefined && !rule.pattern.test(value)) return FAIL
      return rule.max !== undefined && value.length > rule.max ? FAIL : value
    case 'number':
      return readNumber(rule, value)
    case 'boolean':
      return typeof value === 'boolean' ? value : FAIL
    case 'oneOf':
      return rule.values.includes(value) ? value : FAIL
    case 'array': {
      if (!Array.isArray(value) || value.length < (rule.min ?? 0)) return FAIL
      const out: unknown[] = []
      for (let index = 0; index < value.length; index += 1) {
        if (!Object.hasOwn(value, index)) return FAIL
        const item = read(rule.items, value[index])
        if (item === FAIL) return FAIL
        out.push(item)
      }
      return out
    }
    case 'record': {
      if (!isRecord(value)) return FAIL
      const out: Record<string, unknown> = {}
      for (const [key, entry] of Object.entries(value)) {
        if (key.length === 0 || isForbiddenKey(key)) return FAIL
        const parsed = read(rule.values, entry)
        if (parsed === FAIL) return FAIL
        out[key] = parsed
      }
      return out
    }
    case 'object':
      return readObject(rule.fields, value)
    case 'either':
      for (const option of rule.rules) {
        const parsed = read(option, value)
        if (parsed !== FAIL) return parsed
      }
      return FAIL
    case 'json':
      return value
    case 'byType': {
      const type = isRecord(value) ? value.type : undefined
      const variants = rule.variants()
      return typeof type === 'string' && Object.hasOwn(variants, type)
        ? read(valueAt(variants, type), value)
        : FAIL
    }
  }
}

/**
 * Reads a policy without zod when it is a common, valid one: the same result as
 * `policySchema.parse(input)`, or `undefined` when `policySchema` must decide (an invalid policy
 * included, so that its issues come from the schema).
 */
export function parsePolicyFast(input: unknown): Policy | undefined {
  const parsed = read(policyRule, input)
  return parsed === FAIL ? undefined : (parsed as Policy)
}
