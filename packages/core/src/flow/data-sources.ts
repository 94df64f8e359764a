import { commandSource } from '@plan/shell'
import type { ToolPolicy } from '../schema/policy-schema.js'
import { roleValues } from '../taint/role-values.js'
import { workspaceRelative } from '../taint/workspace-relative.js'
import type { JsonObject } from '../types/json-value.js'
import { hostOf } from '../util/host-of.js'

/** Reads a command into its argv, or undefined when it is not one allowed simple command. */
export type ParseCommand = (command: string) => readonly string[] | undefined

/**
 * Where a tool's output comes from, as source names: `file:<path>` for a workspace file it
 * reads or writes (`list:<path>` for a tool that only lists), `run:<family>` or `command:<program>` for
 * a command, `url:<host>` for a page, `tool:<name>` for anything else. A labelled file read
 * back brings its own sources along.
 */
export function outputSources(
  name: string,
  tool: ToolPolicy,
  args: JsonObject,
  roots: readonly string[],
  parseCommand: ParseCommand,
  fileSources: (relative: string) => readonly string[] | undefined,
): string[] {
  const values = roleValues(tool, args)
  const sources: string[] = []
  for (const { role, value } of values) {
    if (role === 'command') {
      const argv = parseCommand(value)
      sources.push(argv === undefined ? `tool:${name}` : commandSource(argv))
    } else if (role === 'url') sources.push(`url:${hostOf(value)}`)
    else {
      // A write tool answers about the file it wrote, which carries its own label.
      const relative = workspaceRelative(value, roots)
      if (relative === undefined) {
        sources.push(`tool:${name}`)
        continue
      }
      // A tool named for listing returns names, not contents.
      const lists = role === 'read' && /list|tree/iu.test(name)
      sources.push(lists ? `list:${relative}` : `file:${relative}`)
      sources.push(...(fileSources(relative) ?? []))
    }
  }
  return sources.length === 0 ? [`tool:${name}`] : sources
}
