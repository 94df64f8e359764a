import type { PlanCompiler, PlanIssue } from '@plan/core'
import { formatIssues } from '@plan/core'
import type { ServerNames } from '../tools/server-names.js'
import type { ResourceInspector } from './resource-check.js'

/** The resource-like URI a `prompts/get` of `name` is audited and labelled under. */
export function promptUri(name: string): string {
  return `prompt:${name}`
}

/**
 * The check of `prompts/get`, in the shape of a resource check so that a prompt is refused,
 * counted, audited and labelled as a resource read is: the prompt (its URI `prompt:<name>`,
 * the name qualified by the server's name, if any) must be in the policy's `mcp.prompts`.
 */
export function createPromptInspector(
  compiler: PlanCompiler,
  names: ServerNames,
): ResourceInspector {
  const allowed = new Set(compiler.policy.policy.mcp?.prompts ?? [])
  const allowedText =
    allowed.size === 0
      ? 'The policy allows no prompts (mcp.prompts lists none).'
      : `Allowed prompts: ${[...allowed].join(', ')}.`
  return {
    async inspect(uri) {
      const name = typeof uri === 'string' ? uri.slice('prompt:'.length) : ''
      if (allowed.has(name) && names.unqualify(name) !== undefined) return {}
      const issue: PlanIssue = {
        code: 'prompt_not_allowed',
        message: `The prompt ${JSON.stringify(name)} is not among the prompts the policy lists (mcp.prompts).`,
        hint: 'Get only prompts the policy lists; a human adds a reviewed prompt to mcp.prompts.',
        path: ['name'],
      }
      return { issue }
    },
    refusal(uri, issues, showAllowed = true) {
      const name = typeof uri === 'string' ? uri.slice('prompt:'.length) : ''
      const refused = `@plan denied the prompt ${JSON.stringify(name)}; it was not fetched.\n${formatIssues(issues)}`
      return { issues, message: showAllowed ? `${refused}\n${allowedText}` : refused }
    },
  }
}
