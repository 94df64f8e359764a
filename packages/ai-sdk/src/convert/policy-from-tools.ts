import type { PolicyFromToolsOptions, ToolPolicyInput } from '@plan/core'
import {
  type JsonSchemaNode,
  policyFromTools as policyFromDescriptions,
  type ToolDescription,
} from '@plan/core/adapter'
import { asSchema, type ToolSet } from 'ai'

/**
 * Derives the `tools` section of a policy from an AI SDK tool set, with core's
 * `policyFromTools` (the same in every adapter): each tool's input schema (zod, `jsonSchema()`
 * or another standard schema) is read as JSON Schema, and each argument is declared as
 * `string`, `number`, `boolean`, `enum` or `array` (anything else as `json`). Mark file paths
 * and commands in `overrides` (or let `inferFromNames` guess, then review): only the author
 * knows which strings they are. Rejects with `PolicyError` when a tool does not take an object
 * of named arguments, or an override names an unknown tool or argument. The options and the
 * result are the same in every adapter.
 *
 * @example
 * ```ts
 * const policy = {
 *   version: 1,
 *   workspace: { roots: ['/srv/repo'] },
 *   tools: await policyFromTools(
 *     { view_file, run_command },
 *     { overrides: { view_file: { args: { file: { type: 'path', access: 'read' } } }, run_command: { args: { command: { type: 'command' } } } } },
 *   ),
 *   commands: { allow: ['git', 'npm'] },
 * }
 * ```
 */
export async function policyFromTools(
  tools: ToolSet,
  options: PolicyFromToolsOptions = {},
): Promise<Record<string, ToolPolicyInput>> {
  const descriptions: ToolDescription[] = []
  for (const [name, tool] of Object.entries(tools)) {
    const schema = (await asSchema(tool.inputSchema).jsonSchema) as JsonSchemaNode
    descriptions.push({
      name,
      schema,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
    })
  }
  return policyFromDescriptions(descriptions, options)
}
