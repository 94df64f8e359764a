import { commandSource } from '@plan/shell'
import { valueAt } from '@plan/shell/common'
import type { ArgSpec, ToolPolicy } from '../schema/policy-schema.js'
import { workspaceRelative } from '../taint/workspace-relative.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import { hostOf } from '../util/host-of.js'

export { workspaceRelative }

/** Reads a command into its argv, or undefined when it is not one allowed simple command. */
export type ParseCommand = (command: string) => readonly string[] | undefined

/** One string argument with the role its declaration gives it. */
export interface RoleValue {
  readonly role: 'read' | 'write' | 'command' | 'url'
  readonly value: string
}

function collect(spec: ArgSpec, value: JsonValue, out: RoleValue[]): void {
  if (spec.type === 'array') {
    if (Array.isArray(value)) for (const item of value) collect(spec.items, item, out)
    return
  }
  if (typeof value !== 'string') return
  if (spec.type === 'command') out.push({ role: 'command', value })
  else if (spec.type === 'path')
    out.push({ role: spec.access === 'write' ? 'write' : 'read', value })
  else if (spec.type === 'string' && spec.format === 'url') out.push({ role: 'url', value })
}

/** The path, command and URL arguments of a call, by role. */
export function roleValues(tool: ToolPolicy, args: JsonObject): RoleValue[] {
  const out: RoleValue[] = []
  for (const name of Object.keys(tool.args))
    if (Object.hasOwn(args, name)) collect(valueAt(tool.args, name), valueAt(args, name), out)
  return out
}

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
