import { valueAt } from '@plan/shell/common'
import type { ArgSpec, Policy, ToolPolicy } from '../schema/policy-schema.js'

/** Where a value sits inside a call's arguments, e.g. `["cmds", 0]`. */
export type ArgumentPath = readonly (string | number)[]

/** Whether one argument declaration, on its own, refuses untrusted data. */
export function refusesUntrusted(spec: ArgSpec): boolean {
  if (spec.acceptsUntrusted !== undefined) return !spec.acceptsUntrusted
  if (spec.type === 'command') return true
  if (spec.type === 'path') return spec.access === 'write'
  if (spec.type === 'string') return spec.format === 'url'
  return false
}

/** True when a declaration or anything declared beneath it refuses untrusted data. */
export function subtreeRefusesUntrusted(spec: ArgSpec): boolean {
  if (refusesUntrusted(spec)) return true
  return spec.type === 'array' && subtreeRefusesUntrusted(spec.items)
}

/**
 * Whether a value placed at `path` inside a tool's arguments can reach an argument that
 * refuses untrusted data: a declaration on the way to it refuses, or one beneath it does (a
 * value that replaces a whole array of commands). Undeclared paths refuse (fail closed).
 */
export function pathRefusesUntrusted(tool: ToolPolicy, path: ArgumentPath): boolean {
  const name = path[0]
  if (typeof name !== 'string' || !Object.hasOwn(tool.args, name)) return true
  let spec = valueAt(tool.args, name)
  for (let index = 1; index < path.length; index += 1) {
    if (refusesUntrusted(spec)) return true
    if (spec.type === 'array') spec = spec.items
    // Inside a `json` (or scalar) value, nothing further is declared.
    else return false
  }
  return subtreeRefusesUntrusted(spec)
}

/** Whether a tool's output is untrusted before anything about its inputs is known. */
export function toolOutputIsUntrusted(policy: Policy, tool: ToolPolicy): boolean {
  return (tool.output?.trust ?? policy.trust.defaultOutput) === 'untrusted'
}

/**
 * Whether content that reached the model outside any step (a resource read) may be trusted:
 * only when the policy trusts the output of every tool as it comes. A policy that distrusts
 * one tool's output (a file reader, a fetch) may be distrusting the very data a resource holds.
 */
export function outsideContentIsTrusted(policy: Policy, tools: Iterable<ToolPolicy>): boolean {
  if (policy.trust.defaultOutput !== 'trusted') return false
  for (const tool of tools)
    if (toolOutputIsUntrusted(policy, tool) || toolDeclassifies(tool)) return false
  return true
}

/**
 * Whether the copied-text check can change a call of `tool` whose arguments are all declared: an
 * argument refuses untrusted data (a copy is refused), or the output's label follows its inputs (a
 * copy makes it untrusted). Else nothing a decision, an event or a label reads changes.
 */
export function copiedTextMatters(policy: Policy, tool: ToolPolicy): boolean {
  for (const name of Object.keys(tool.args))
    if (subtreeRefusesUntrusted(valueAt(tool.args, name))) return true
  return !toolDeclassifies(tool) && !toolOutputIsUntrusted(policy, tool)
}

/** Whether a tool's output is re-validated at run time, and trusted when it matches. */
export function toolDeclassifies(tool: ToolPolicy): boolean {
  return tool.output?.declassify !== undefined || tool.output?.extract === true
}

/** `"a.output.x"`: the name of a step's output (or a field of it) in a flow. */
export function outputName(stepId: string, field: readonly string[] = []): string {
  return [stepId, 'output', ...field].join('.')
}

/** `"b.args.command"`: the name of a step's argument in a flow. */
export function argumentName(stepId: string, path: ArgumentPath): string {
  return [stepId, 'args', ...path.map(String)].join('.')
}
