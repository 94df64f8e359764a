import type { PlanIssue } from '@plan/core'
import type { WithheldTool } from '../tools/tool-listing.js'
import type { McpCallGuard } from './create-mcp-call-guard.js'

/** The requests whose `uri` the guard checks with `resources: 'workspace'`. */
export const RESOURCE_METHODS: ReadonlySet<string> = new Set([
  'resources/read',
  'resources/subscribe',
])

/** The request whose prompt name the guard checks against the policy's `mcp.prompts`. */
export const PROMPT_GET = 'prompts/get'

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

/**
 * A `prompts/list` result with only the prompts the policy's `mcp.prompts` lists, named as the
 * policy names them (qualified by the server's name, if any), the rest unchanged.
 */
export function allowedPromptList(result: unknown, guard: McpCallGuard): Record<string, unknown> {
  const listed = asRecord(result)
  const prompts = Array.isArray(listed.prompts) ? listed.prompts : []
  const allowed = new Set(guard.compiler.policy.policy.mcp?.prompts ?? [])
  const shown: unknown[] = []
  for (const prompt of prompts) {
    const name = asRecord(prompt).name
    if (typeof name !== 'string' || !allowed.has(guard.names.qualify(name))) continue
    shown.push({ ...asRecord(prompt), name: guard.names.qualify(name) })
  }
  return { ...listed, prompts: shown }
}

/** The `notifications/message` that tells the client which tools were withheld, and why. */
export function withheldNotice(withheld: readonly WithheldTool[]): {
  method: 'notifications/message'
  params: Record<string, unknown>
} {
  const names = withheld.map((tool) => tool.tool).join(', ')
  return {
    method: 'notifications/message',
    params: {
      level: 'warning',
      logger: 'plan-mcp',
      data: {
        message: `@plan withheld ${withheld.length === 1 ? 'a tool' : `${withheld.length} tools`} the server listed (${names}): a definition that differs from its pin, or none. A human must review it and run \`plan-mcp pin\`.`,
        withheld: withheld.map((tool) => ({
          tool: tool.tool,
          code: tool.issue.code,
          definitionHash: tool.definitionHash,
          pin: tool.pin,
        })),
      },
    },
  }
}

/**
 * A `completion/complete` about a prompt, as the server is to get it: the prompt renamed to
 * the server's own name; or the issue when the policy's `mcp.prompts` does not list it (its
 * argument completions are the server's text about a prompt the model may not use). Any other
 * completion request is returned as it is.
 */
export function promptCompletion(
  params: Record<string, unknown>,
  guard: McpCallGuard,
): { readonly params: Record<string, unknown> } | { readonly issue: PlanIssue } {
  const ref = asRecord(params.ref)
  if (ref.type !== 'ref/prompt') return { params }
  const allowed = new Set(guard.compiler.policy.policy.mcp?.prompts ?? [])
  const name = typeof ref.name === 'string' ? ref.name : ''
  const own = guard.names.unqualify(name)
  if (!allowed.has(name) || own === undefined)
    return {
      issue: {
        code: 'prompt_not_allowed',
        message: `The prompt ${JSON.stringify(name)} is not among the prompts the policy lists (mcp.prompts); its completions were not asked for.`,
        hint: 'Complete only the arguments of prompts the policy lists.',
        path: ['ref', 'name'],
      },
    }
  return { params: { ...params, ref: { ...ref, name: own } } }
}
