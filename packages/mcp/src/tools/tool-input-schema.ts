import type { ArgSpec, ToolPolicy } from '@plan/core'

/** A JSON Schema object as a `tools/list` entry carries it. */
export type JsonSchemaObject = Record<string, unknown>

/** The words a model is told about a path or command argument, before the policy's own. */
function describedKind(spec: ArgSpec): string | undefined {
  if (spec.type === 'path')
    return `A path inside the workspace (${spec.access} access); paths under its denied folders are refused.`
  if (spec.type === 'command')
    return 'One command of an allowed program, with literal arguments (no pipes, redirections or $).'
  return undefined
}

function valueSchema(spec: ArgSpec): JsonSchemaObject {
  switch (spec.type) {
    case 'string':
      return {
        type: 'string',
        ...(spec.minLength === undefined ? {} : { minLength: spec.minLength }),
        ...(spec.maxLength === undefined ? {} : { maxLength: spec.maxLength }),
        // JSON Schema's pattern matches anywhere; the policy's must match the whole value
        ...(spec.pattern === undefined ? {} : { pattern: `^(?:${spec.pattern})$` }),
        ...(spec.format === 'url' ? { format: 'uri' } : {}),
      }
    case 'number':
      return {
        type: spec.integer === true ? 'integer' : 'number',
        ...(spec.minimum === undefined ? {} : { minimum: spec.minimum }),
        ...(spec.maximum === undefined ? {} : { maximum: spec.maximum }),
      }
    case 'boolean':
      return { type: 'boolean' }
    case 'enum':
      return { enum: [...spec.values] }
    case 'path':
    case 'command':
      return { type: 'string', minLength: 1 }
    case 'json':
      return {}
    case 'array':
      return {
        type: 'array',
        items: argumentSchema(spec.items, undefined),
        ...(spec.maxItems === undefined ? {} : { maxItems: spec.maxItems }),
      }
  }
}

/** One argument's schema; the server's description of it is kept when the policy gives none. */
function argumentSchema(spec: ArgSpec, serverDescription: string | undefined): JsonSchemaObject {
  const words = [describedKind(spec), spec.description ?? serverDescription].filter(
    (part): part is string => part !== undefined,
  )
  const schema = valueSchema(spec)
  return words.length === 0 ? schema : { ...schema, description: words.join(' ') }
}

function serverPropertyDescription(serverSchema: unknown, name: string): string | undefined {
  const properties = (serverSchema as { properties?: unknown } | null)?.properties
  if (typeof properties !== 'object' || properties === null || !Object.hasOwn(properties, name))
    return undefined
  const description = (properties as Record<string, { description?: unknown } | null>)[name]
    ?.description
  return typeof description === 'string' ? description : undefined
}

/**
 * The input schema a client is shown for a tool: the policy's declaration of its arguments,
 * not the server's, so what the model is offered is what the guard accepts — only the
 * declared arguments (`additionalProperties: false`), their types and bounds, required unless
 * declared optional. The server's description of an argument is kept where the policy has
 * none (it is part of the tool's pinned definition).
 */
export function toolInputSchema(tool: ToolPolicy, serverSchema?: unknown): JsonSchemaObject {
  const properties: Record<string, JsonSchemaObject> = {}
  const required: string[] = []
  for (const [name, spec] of Object.entries(tool.args)) {
    // defined, not assigned: an argument named "__proto__" stays a property
    Object.defineProperty(properties, name, {
      value: argumentSchema(spec, serverPropertyDescription(serverSchema, name)),
      enumerable: true,
      writable: true,
      configurable: true,
    })
    if (spec.required !== false) required.push(name)
  }
  return {
    type: 'object',
    properties,
    ...(required.length === 0 ? {} : { required }),
    additionalProperties: false,
  }
}
