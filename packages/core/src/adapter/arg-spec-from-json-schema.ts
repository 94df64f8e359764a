import { isRecord } from '@plan/shell/common'
import type { PolicyInput } from '../schema/policy-schema.js'
import { isScalar } from '../util/is-scalar.js'

/** One tool's entry in a policy's `tools` section, as written. */
export type ToolPolicyInput = PolicyInput['tools'][string]

/** One argument declaration, as written in a policy. */
export type ArgSpecInput = NonNullable<ToolPolicyInput['args']>[string]

/** A JSON Schema object (draft 7 or 2020-12), as tools describe their arguments. */
export type JsonSchemaNode = { readonly [key: string]: unknown }

/** How a string argument is declared when no schema keyword says more. */
export type StringKind = (node: JsonSchemaNode) => ArgSpecInput | undefined

const MAX_DEPTH = 32

type SpecOf<Type extends ArgSpecInput['type']> = Extract<ArgSpecInput, { type: Type }>

function withCommon(spec: ArgSpecInput, node: JsonSchemaNode, required: boolean): ArgSpecInput {
  const out = { ...spec }
  if (!required) out.required = false
  if (typeof node.description === 'string') out.description = node.description
  return out
}

function bound(
  node: JsonSchemaNode,
  inclusive: string,
  exclusive: string,
  step: number,
  integer: boolean,
): number | undefined {
  const closed = node[inclusive]
  if (typeof closed === 'number') return closed
  const open = node[exclusive]
  if (typeof open === 'number') return open + (integer ? step : 0)
  return undefined
}

function stringSpec(node: JsonSchemaNode): SpecOf<'string'> {
  const spec: SpecOf<'string'> = { type: 'string' }
  if (typeof node.minLength === 'number') spec.minLength = node.minLength
  if (typeof node.maxLength === 'number') spec.maxLength = node.maxLength
  if (typeof node.pattern === 'string') spec.pattern = node.pattern
  return spec
}

function numberSpec(node: JsonSchemaNode): SpecOf<'number'> {
  const integer = node.type === 'integer'
  const spec: SpecOf<'number'> = { type: 'number' }
  if (integer) spec.integer = true
  const minimum = bound(node, 'minimum', 'exclusiveMinimum', 1, integer)
  const maximum = bound(node, 'maximum', 'exclusiveMaximum', -1, integer)
  if (minimum !== undefined) spec.minimum = minimum
  if (maximum !== undefined) spec.maximum = maximum
  return spec
}

/** The first non-null type of a node (`["string", "null"]` is a string). */
function typeOf(node: JsonSchemaNode): unknown {
  return Array.isArray(node.type) ? node.type.find((entry) => entry !== 'null') : node.type
}

/**
 * Maps one JSON Schema node to an argument declaration; what has no exact match becomes
 * `json`. `stringKind` may declare a string as a path or a command (from the property's name).
 */
export function argSpecFromSchema(
  node: unknown,
  required: boolean,
  stringKind: StringKind | undefined,
  depth = 0,
): ArgSpecInput {
  if (!isRecord(node) || depth > MAX_DEPTH) return withCommon({ type: 'json' }, {}, required)
  const type = typeOf(node)
  const kind = type === 'string' ? stringKind?.(node) : undefined
  if (kind !== undefined) return withCommon(kind, node, required)
  const values = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const] : undefined
  if (values !== undefined) {
    return values.length > 0 && values.every(isScalar)
      ? withCommon({ type: 'enum', values }, node, required)
      : withCommon({ type: 'json' }, node, required)
  }
  switch (type) {
    case 'string':
      return withCommon(stringSpec(node), node, required)
    case 'integer':
    case 'number':
      return withCommon(numberSpec({ ...node, type }), node, required)
    case 'boolean':
      return withCommon({ type: 'boolean' }, node, required)
    case 'array': {
      const spec: SpecOf<'array'> = {
        type: 'array',
        items: argSpecFromSchema(node.items, true, stringKind, depth + 1),
      }
      if (typeof node.maxItems === 'number') spec.maxItems = node.maxItems
      return withCommon(spec, node, required)
    }
    default:
      return withCommon({ type: 'json' }, node, required)
  }
}
