import { commandSource } from '@plan/shell'
import { GENERATE_TOOL } from '../extract/model-step-policy.js'
import type { ToolPolicy } from '../schema/policy-schema.js'
import type { RoleValue } from '../taint/role-values.js'
import { workspaceRelative } from '../taint/workspace-relative.js'
import type { commandParser } from '../util/command-parser.js'
import { hostOf } from '../util/host-of.js'

/** Reads a command into its argv, or undefined when it is not one allowed simple command. */
export type ParseCommand = ReturnType<typeof commandParser>

/**
 * A role-typed string argument as far as it is known: `value` is undefined where a `$ref` sets
 * it at run time, and `globs` are the workspace files such a value stays within.
 */
export interface SourceValue extends Pick<RoleValue, 'role'> {
  readonly value?: string
  readonly globs?: readonly string[]
}

/** What {@link outputSources} reads besides the call: the workspace, commands, labelled files. */
export interface SourceContext {
  readonly roots: readonly string[]
  readonly parseCommand: ParseCommand
  /** The sources of the labelled files a read of `file` (a path or a glob) brings back. */
  readonly fileSources: (file: string) => readonly string[] | undefined
}

/** Any file of the workspace: the glob of a path the plan does not fix. */
export const ANY_FILE = '**'
const ANY_FILES: readonly string[] = Object.freeze([ANY_FILE])

/** The workspace files (or globs) a path argument may name: none for a path outside it. */
export function filesOf(
  value: SourceValue['value'],
  globs: SourceValue['globs'],
  roots: readonly string[],
): readonly string[] {
  if (value === undefined) return globs ?? ANY_FILES
  const relative = workspaceRelative(value, roots)
  return relative === undefined ? [] : [relative]
}

/**
 * Where a tool's output comes from, as source names: `file:<path>` for a workspace file read or
 * written (`list:<path>` if only listed), `run:<family>` or `command:<program>` for a command,
 * `url:<host>` for a page, else `tool:<name>` (also for an unknown value). A labelled file read
 * back brings its sources. A model step's output has no sources of its own, only its references'.
 */
export function outputSources(
  name: string,
  tool: ToolPolicy | undefined,
  values: readonly SourceValue[],
  context: SourceContext,
): string[] {
  const toolName = `tool:${name}`
  if (tool === undefined) return [toolName]
  if (tool.output?.extract === true || name === GENERATE_TOOL) return []
  const sources: string[] = []
  for (const { role, value, globs } of values) {
    if (role === 'command') {
      const argv = value === undefined ? undefined : context.parseCommand(value)
      sources.push(argv === undefined ? toolName : commandSource(argv))
    } else if (role === 'url') sources.push(value === undefined ? toolName : `url:${hostOf(value)}`)
    else {
      // A write tool answers about the file it wrote, which carries its own label.
      const files = filesOf(value, globs, context.roots)
      if (files.length === 0) sources.push(toolName)
      // A tool named for listing returns names, not contents.
      const lists = role === 'read' && /list|tree/iu.test(name)
      for (const file of files) {
        sources.push(lists ? `list:${file}` : `file:${file}`)
        sources.push(...(context.fileSources(file) ?? []))
      }
    }
  }
  return sources.length === 0 ? [toolName] : sources
}
