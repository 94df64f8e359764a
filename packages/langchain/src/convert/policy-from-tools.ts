import { toJsonSchema } from '@langchain/core/utils/json_schema'
import { type PlanIssue, PolicyError, type PolicyInput } from '@plan/core'

/** One tool's entry in a policy's `tools` section, as written. */
export type ToolPolicyInput = PolicyInput['tools'][string]

/** One argument declaration, as written in a policy. */
export type ArgSpecInput = NonNullable<ToolPolicyInput['args']>[string]

/** What {@link policyFromTools} reads from a LangChain tool. */
export interface DescribedTool {
  readonly name: string
  readonly description?: string | undefined
  /** A zod (v3 or v4) schema, a Standard JSON Schema, or a JSON Schema object. */
  readonly schema?: unknown
}

/**
 * Per-tool changes to the derived declarations: mark arguments as paths or commands, set
 * `maxCalls`, label the output untrusted. An argument given here replaces the derived one
 * (its description and `required` are kept unless set).
 */
export type ToolPolicyOverrides = Readonly<
  Record<
    string,
    Omit<Partial<ToolPolicyInput>, 'args'> & {
      readonly args?: Readonly<Record<string, ArgSpecInput>>
    }
  >
>

type JsonSchemaNode = { readonly [key: string]: unknown }

function isNode(value: unknown): value is JsonSchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Sets an own data property, so a key such as `__proto__` stays a plain key. */
function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  })
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
}

function withCommon(spec: ArgSpecInput, node: JsonSchemaNode, required: boolean): ArgSpecInput {
  const out: Record<string, unknown> = { ...spec }
  if (!required) out.required = false
  if (typeof node.description === 'string') out.description = node.description
  return out as ArgSpecInput
}

function bound(
  node: JsonSchemaNode,
  inclusive: string,
  exclusive: string,
  step: number,
  integer: boolean,
) {
  if (typeof node[inclusive] === 'number') return node[inclusive] as number
  if (typeof node[exclusive] === 'number') return (node[exclusive] as number) + (integer ? step : 0)
  return undefined
}

/** Maps one JSON Schema node to an argument declaration; what has no exact match becomes `json`. */
function argSpecFromSchema(node: unknown, required: boolean, depth = 0): ArgSpecInput {
  if (!isNode(node) || depth > 32) return withCommon({ type: 'json' }, {}, required)
  const values = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const] : undefined
  if (values !== undefined) {
    return values.length > 0 && values.every(isScalar)
      ? withCommon({ type: 'enum', values }, node, required)
      : withCommon({ type: 'json' }, node, required)
  }
  switch (node.type) {
    case 'string': {
      const spec: Record<string, unknown> = { type: 'string' }
      if (typeof node.minLength === 'number') spec.minLength = node.minLength
      if (typeof node.maxLength === 'number') spec.maxLength = node.maxLength
      if (typeof node.pattern === 'string') spec.pattern = node.pattern
      return withCommon(spec as ArgSpecInput, node, required)
    }
    case 'integer':
    case 'number': {
      const integer = node.type === 'integer'
      const spec: Record<string, unknown> = { type: 'number' }
      if (integer) spec.integer = true
      const minimum = bound(node, 'minimum', 'exclusiveMinimum', 1, integer)
      const maximum = bound(node, 'maximum', 'exclusiveMaximum', -1, integer)
      if (minimum !== undefined) spec.minimum = minimum
      if (maximum !== undefined) spec.maximum = maximum
      return withCommon(spec as ArgSpecInput, node, required)
    }
    case 'boolean':
      return withCommon({ type: 'boolean' }, node, required)
    case 'array': {
      const spec: Record<string, unknown> = {
        type: 'array',
        items: argSpecFromSchema(node.items, true, depth + 1),
      }
      if (typeof node.maxItems === 'number') spec.maxItems = node.maxItems
      return withCommon(spec as ArgSpecInput, node, required)
    }
    default:
      return withCommon({ type: 'json' }, node, required)
  }
}

function schemaOf(tool: DescribedTool): JsonSchemaNode | undefined {
  if (tool.schema === undefined) return undefined
  try {
    const schema: unknown = toJsonSchema(tool.schema as Parameters<typeof toJsonSchema>[0])
    return isNode(schema) ? schema : undefined
  } catch {
    return undefined
  }
}

/**
 * Derives the `tools` section of a policy from LangChain tools: every tool is listed, and each
 * argument of its zod schema is declared as `string`, `number`, `boolean`, `enum` or `array`
 * (anything else as `json`). Only the author knows which arguments are file paths or shell
 * commands: mark them in `overrides`, or they are checked as plain strings. Throws
 * `PolicyError` when a tool's schema is not an object, or an override names an unknown tool or
 * argument (a typo there would leave a path unchecked).
 *
 * @example
 * ```ts
 * const policy = {
 *   version: 1,
 *   workspace: { roots: ['/srv/repo'] },
 *   tools: policyFromTools([readFile, runCommand], {
 *     read_file: { args: { path: { type: 'path', access: 'read' } } },
 *     run_command: { args: { command: { type: 'command' } } },
 *   }),
 *   commands: { allow: ['git', 'npm'] },
 * }
 * ```
 */
export function policyFromTools(
  tools: readonly DescribedTool[],
  overrides: ToolPolicyOverrides = {},
): Record<string, ToolPolicyInput> {
  const issues: PlanIssue[] = []
  const out: Record<string, ToolPolicyInput> = Object.create(null)
  for (const tool of tools) {
    const schema = schemaOf(tool) ?? { type: 'object', properties: {} }
    if (
      schema.type !== 'object' ||
      (schema.properties !== undefined && !isNode(schema.properties))
    ) {
      issues.push({
        code: 'invalid_policy',
        message: `The tool "${tool.name}" does not take an object of named arguments.`,
        path: ['tools', tool.name],
        hint: 'Give the tool a z.object(...) schema, or write its policy entry by hand.',
      })
      continue
    }
    const properties = isNode(schema.properties) ? schema.properties : {}
    const required = new Set(Array.isArray(schema.required) ? schema.required : [])
    const args: Record<string, ArgSpecInput> = {}
    for (const [name, node] of Object.entries(properties)) {
      const hasDefault = isNode(node) && 'default' in node
      setOwn(args, name, argSpecFromSchema(node, required.has(name) && !hasDefault))
    }
    const entry: Record<string, unknown> = { args }
    if (typeof tool.description === 'string' && tool.description !== '') {
      entry.description = tool.description
    }
    setOwn(out, tool.name, entry)
  }
  for (const [toolName, override] of Object.entries(overrides)) {
    const entry = Object.hasOwn(out, toolName)
      ? (out[toolName] as Record<string, unknown>)
      : undefined
    if (entry === undefined) {
      issues.push({
        code: 'invalid_policy',
        message: `The override names the tool "${toolName}", which is not among the tools given.`,
        path: ['tools', toolName],
        hint: `Use one of: ${Object.keys(out).join(', ') || '(no tools)'}.`,
      })
      continue
    }
    const { args: argumentOverrides, ...rest } = override
    Object.assign(entry, rest)
    const args = entry.args as Record<string, ArgSpecInput>
    for (const [name, spec] of Object.entries(argumentOverrides ?? {})) {
      const derived = Object.hasOwn(args, name)
        ? (args[name] as Record<string, unknown>)
        : undefined
      if (derived === undefined) {
        issues.push({
          code: 'invalid_policy',
          message: `The override names the argument "${name}", which the tool "${toolName}" does not take.`,
          path: ['tools', toolName, 'args', name],
          hint: `Use one of: ${Object.keys(args).join(', ') || '(no arguments)'}.`,
        })
        continue
      }
      const merged: Record<string, unknown> = { ...spec }
      if (merged.required === undefined && derived.required !== undefined)
        merged.required = derived.required
      if (merged.description === undefined && derived.description !== undefined) {
        merged.description = derived.description
      }
      setOwn(args, name, merged)
    }
  }
  if (issues.length > 0) {
    throw new PolicyError(issues)
  }
  return { ...out }
}
