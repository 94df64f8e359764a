import { defineValue } from '@plan/json'
import type { PlanIssue } from '@plan/shell/common'
import type { ArgSpecInput, ToolPolicyInput } from './arg-spec-from-json-schema.js'

/**
 * Per-tool changes to the declarations `policyFromTools` derives: mark arguments as paths or
 * commands, set `maxCalls`, label the output untrusted. An argument given here replaces the
 * derived one (its description and `required` are kept unless set).
 */
export type ToolPolicyOverrides = Readonly<
  Record<
    string,
    Omit<Partial<ToolPolicyInput>, 'args'> & {
      readonly args?: Readonly<Record<string, ArgSpecInput>>
    }
  >
>

function ownEntry<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined
}

function mergeArgument(
  toolName: string,
  args: Record<string, ArgSpecInput>,
  name: string,
  spec: ArgSpecInput,
): PlanIssue | undefined {
  const derived = ownEntry(args, name)
  if (derived === undefined) {
    return {
      code: 'invalid_policy',
      message: `The override names the argument "${name}", which the tool "${toolName}" does not take.`,
      path: ['tools', toolName, 'args', name],
      hint: `Use one of: ${Object.keys(args).join(', ') || '(no arguments)'}.`,
    }
  }
  const merged = { ...spec }
  if (merged.required === undefined && derived.required !== undefined)
    merged.required = derived.required
  if (merged.description === undefined && derived.description !== undefined) {
    merged.description = derived.description
  }
  defineValue(args, name, merged)
  return undefined
}

/** Applies `overrides` to derived tool entries in place; returns an issue per unknown name. */
export function applyToolOverrides(
  tools: Record<string, ToolPolicyInput>,
  overrides: ToolPolicyOverrides,
): PlanIssue[] {
  const issues: PlanIssue[] = []
  for (const [toolName, override] of Object.entries(overrides)) {
    const entry = ownEntry(tools, toolName)
    if (entry === undefined) {
      issues.push({
        code: 'invalid_policy',
        message: `The override names the tool "${toolName}", which is not among the tools given.`,
        path: ['tools', toolName],
        hint: `Use one of: ${Object.keys(tools).join(', ') || '(no tools)'}.`,
      })
      continue
    }
    const { args: argumentOverrides, ...rest } = override
    Object.assign(entry, rest)
    const args = entry.args ?? {}
    for (const [name, spec] of Object.entries(argumentOverrides ?? {})) {
      const issue = mergeArgument(toolName, args, name, spec)
      if (issue !== undefined) issues.push(issue)
    }
  }
  return issues
}
