import { hashJson } from '@plan/core/adapter'
import { asRecord } from '../guard/message-fields.js'

/** The members of a listed tool that a pin covers: what a model or a human is shown of it. */
const PINNED_MEMBERS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
] as const

/** The part of a `tools/list` entry that its pin covers, members absent left out. */
export function pinnedDefinition(tool: unknown): Record<string, unknown> {
  const listed = asRecord(tool)
  const definition: Record<string, unknown> = {}
  for (const member of PINNED_MEMBERS)
    if (listed[member] !== undefined) definition[member] = listed[member]
  return definition
}

/**
 * The pin of a tool as a server lists it: `sha256:` and the SHA-256 of its name, title,
 * description, input and output schema and annotations as RFC 8785 canonical JSON, so any
 * change to what the model or a reviewer reads of the tool changes the pin. The name hashed is
 * the server's own, not the one qualified by the server's name.
 *
 * @example
 * ```ts
 * toolDefinitionHash({ name: 'read_text_file', description: 'Read a file.', inputSchema: { type: 'object' } })
 * // 'sha256:…' (64 hex digits)
 * ```
 */
export function toolDefinitionHash(tool: unknown): string {
  return `sha256:${hashJson(pinnedDefinition(tool))}`
}
