import type { ServerNames } from '../tools/server-names.js'
import { pinnedDefinition, toolDefinitionHash } from '../tools/tool-definition.js'
import { lineDiff } from './definition-diff.js'
import type { ListedTool } from './policy-from-tools.js'

/** The definitions a human reviewed, by the policy's tool name, as `plan-mcp` keeps them. */
export interface ReviewedDefinitions {
  readonly version: 1
  readonly tools: Readonly<Record<string, Record<string, unknown>>>
}

/** One policy entry whose pin no longer matches the server's definition, or has none. */
export interface PinChange {
  readonly tool: string
  readonly pin: string | null
  readonly definitionHash: string
  readonly definition: Record<string, unknown>
  /** The reviewed definition against the listed one, line by line (all added when none was kept). */
  readonly diff: readonly string[]
}

/** What `plan-mcp pin` found: entries to pin anew, and entries the server no longer lists. */
export interface PinReport {
  readonly changes: readonly PinChange[]
  /** Policy entries of this server that its listing lacks. */
  readonly missing: readonly string[]
  /** Tools the server lists that the policy does not (never pinned: a human adds them first). */
  readonly unlisted: readonly string[]
}

function shown(definition: Record<string, unknown> | undefined): string {
  return definition === undefined ? '' : JSON.stringify(definition, null, 2)
}

/**
 * Compares the server's listing with the policy's pins: every entry of this server (its names
 * qualified by `names`) whose listed definition hash differs from its `pin` is a change, with
 * the line diff from the reviewed definition. Only entries the policy has are pinned.
 */
export function pinChanges(
  policyTools: Readonly<Record<string, { readonly pin?: unknown }>>,
  listed: readonly ListedTool[],
  names: ServerNames,
  reviewed: ReviewedDefinitions | undefined,
): PinReport {
  const changes: PinChange[] = []
  const unlisted: string[] = []
  const seen = new Set<string>()
  for (const tool of listed) {
    const name = names.qualify(tool.name)
    if (seen.has(name)) continue
    seen.add(name)
    if (!Object.hasOwn(policyTools, name)) {
      unlisted.push(name)
      continue
    }
    const pin = policyTools[name]?.pin
    const definitionHash = toolDefinitionHash(tool)
    if (pin === definitionHash) continue
    const definition = pinnedDefinition(tool)
    const before =
      reviewed !== undefined && Object.hasOwn(reviewed.tools, name)
        ? reviewed.tools[name]
        : undefined
    changes.push({
      tool: name,
      pin: typeof pin === 'string' ? pin : null,
      definitionHash,
      definition,
      diff: lineDiff(shown(before), shown(definition)),
    })
  }
  const missing = Object.keys(policyTools).filter(
    (name) => !seen.has(name) && names.unqualify(name) !== undefined,
  )
  return { changes, missing, unlisted }
}

/** The report as text for the reviewer: each change's pins and diff, then what is missing. */
export function pinReportText(report: PinReport): string {
  const parts: string[] = []
  for (const change of report.changes) {
    parts.push(`${change.tool}: ${change.pin ?? '(no pin)'} -> ${change.definitionHash}`)
    parts.push(...change.diff.map((line) => `    ${line}`))
  }
  for (const name of report.missing) parts.push(`${name}: in the policy, not listed by the server`)
  for (const name of report.unlisted)
    parts.push(`${name}: listed by the server, not in the policy (add it to pin it)`)
  return parts.length === 0 ? 'Every pin matches the server’s tools.' : parts.join('\n')
}
