import { toJsonSchema } from '@langchain/core/utils/json_schema'
import type { PolicyFromToolsOptions, ToolPolicyInput } from '@plan/core'
import {
  type JsonSchemaNode,
  policyFromTools as policyFromDescriptions,
  type ToolDescription,
} from '@plan/core/adapter'

/** What {@link policyFromTools} reads from a LangChain tool. */
export interface DescribedTool {
  readonly name: string
  readonly description?: string | undefined
  /** A zod (v3 or v4) schema, a Standard JSON Schema, or a JSON Schema object. */
  readonly schema?: unknown
}

function isNode(value: unknown): value is JsonSchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The tool's arguments as JSON Schema; a schema that does not convert reads as not an object. */
function schemaOf(tool: DescribedTool): JsonSchemaNode | undefined {
  if (tool.schema === undefined) return undefined
  try {
    const schema: unknown = toJsonSchema(tool.schema as Parameters<typeof toJsonSchema>[0])
    return isNode(schema) ? schema : { type: 'not an object' }
  } catch {
    return { type: 'not an object' }
  }
}

function describe(tool: DescribedTool): ToolDescription {
  const schema = schemaOf(tool)
  return {
    name: tool.name,
    ...(schema === undefined ? {} : { schema }),
    ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
  }
}

/**
 * Derives the `tools` section of a policy from LangChain tools, with `@plan/core`'s
 * `policyFromTools` (the same in every adapter): each tool's zod schema is read as JSON Schema,
 * and each argument is declared as `string`, `number`, `boolean`, `enum` or `array` (anything
 * else as `json`). Only the author knows which arguments are file paths or shell commands:
 * mark them in `overrides` (or let `inferFromNames` guess, then review), or they are checked as
 * plain strings. Rejects with `PolicyError` when a tool's schema is not an object, or an
 * override names an unknown tool or argument (a typo there would leave a path unchecked). The
 * options and the result are the same in every adapter.
 *
 * @example
 * ```ts
 * const policy = {
 *   version: 1,
 *   workspace: { roots: ['/srv/repo'] },
 *   tools: await policyFromTools([readFile, runCommand], {
 *     overrides: {
 *       read_file: { args: { path: { type: 'path', access: 'read' } } },
 *       run_command: { args: { command: { type: 'command' } } },
 *     },
 *   }),
 *   commands: { allow: ['git', 'npm'] },
 * }
 * ```
 */
export async function policyFromTools(
  tools: readonly DescribedTool[],
  options: PolicyFromToolsOptions = {},
): Promise<Record<string, ToolPolicyInput>> {
  return policyFromDescriptions(tools.map(describe), options)
}
