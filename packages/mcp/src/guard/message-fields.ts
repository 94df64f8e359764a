import type { McpCallGuard } from './create-mcp-call-guard.js'

/** The requests whose `uri` the guard checks with `resources: 'workspace'`. */
export const RESOURCE_METHODS: ReadonlySet<string> = new Set([
  'resources/read',
  'resources/subscribe',
])

/** A JSON-RPC member as a record to read fields from; `{}` for anything that is not an object. */
export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}

/** The tool a `tools/call`'s params name, or '' when they name none. */
export function toolNameOf(params: Record<string, unknown>): string {
  return typeof params.name === 'string' ? params.name : ''
}

/** A `tools/list` result with only the tools the guard's policy lists, the rest unchanged. */
export function allowedToolList(result: unknown, guard: McpCallGuard): Record<string, unknown> {
  const listed = asRecord(result)
  const tools = Array.isArray(listed.tools) ? listed.tools : []
  return {
    ...listed,
    tools: tools.filter((tool) => {
      const name = asRecord(tool).name
      return typeof name === 'string' && guard.isToolAllowed(name)
    }),
  }
}
