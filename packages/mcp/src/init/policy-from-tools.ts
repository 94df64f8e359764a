import type { PolicyFromToolsOptions, ToolPolicyInput } from '@plan/core'
import { type JsonSchemaNode, policyFromTools as policyFromDescriptions } from '@plan/core/adapter'

/** A tool as `tools/list` describes it (its name, description and input schema are read). */
export interface ListedTool {
  readonly name: string
  readonly description?: string | undefined
  readonly inputSchema?: { readonly [key: string]: unknown }
  readonly [member: string]: unknown
}

/**
 * Derives the `tools` section of a policy from the tools an MCP server lists, with the same
 * options and result as every `@plan` adapter's `policyFromTools`: each argument is declared
 * as `string`, `number`, `boolean`, `enum` or `array` (anything else as `json`). Mark file
 * paths and commands in `overrides` (or let `inferFromNames` guess, then review): only the
 * author knows which strings they are. Rejects with `PolicyError` when a tool does not take an
 * object of named arguments, or an override names an unknown tool or argument. For the whole
 * starting policy `plan-mcp init` writes (pins, budgets, names read for meaning), see
 * `starterPolicyFromTools`.
 *
 * @example
 * ```ts
 * const { tools } = await client.listTools()
 * const policy = {
 *   version: 1,
 *   workspace: { roots: ['/srv/repo'] },
 *   tools: await policyFromTools(tools, {
 *     overrides: { read_text_file: { args: { path: { type: 'path', access: 'read' } } } },
 *   }),
 * }
 * ```
 */
export async function policyFromTools(
  tools: readonly ListedTool[],
  options: PolicyFromToolsOptions = {},
): Promise<Record<string, ToolPolicyInput>> {
  const descriptions = tools.map((tool) => ({
    name: tool.name,
    ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
    ...(tool.inputSchema === undefined ? {} : { schema: tool.inputSchema as JsonSchemaNode }),
  }))
  return policyFromDescriptions(descriptions, options)
}
