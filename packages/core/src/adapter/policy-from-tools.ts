import { defineValue } from '@plan/json'
import { isRecord, type PlanIssue, PolicyError } from '@plan/shell/common'
import {
  type ArgSpecInput,
  argSpecFromSchema,
  type JsonSchemaNode,
  type ToolPolicyInput,
} from './arg-spec-from-json-schema.js'
import { kindFromName } from './kind-from-name.js'
import { applyToolOverrides, type ToolPolicyOverrides } from './tool-overrides.js'

/** A tool as {@link policyFromTools} reads it: its name, description and JSON Schema. */
export interface ToolDescription {
  readonly name: string
  readonly description?: string | undefined
  /** The JSON Schema of the tool's arguments (an object schema); none means no arguments. */
  readonly schema?: JsonSchemaNode | undefined
}

/** Options for {@link policyFromTools}. */
export interface PolicyFromToolsOptions {
  /** Per-tool changes to the derived entries (paths, commands, `maxCalls`, output trust). */
  readonly overrides?: ToolPolicyOverrides | undefined
  /**
   * Guess from argument names which strings are commands (`command`, `cmd`) and which are
   * paths (`path`, `filePath`, `source_dir`), with write access for tools whose name says
   * they change files. Default false: strings stay strings unless `overrides` say otherwise.
   */
  readonly inferFromNames?: boolean | undefined
}

function notAnObject(name: string): PlanIssue {
  return {
    code: 'invalid_policy',
    message: `The tool "${name}" does not take an object of named arguments.`,
    path: ['tools', name],
    hint: 'Give the tool an object schema, or write its policy entry by hand.',
  }
}

function toolEntry(
  tool: ToolDescription,
  schema: JsonSchemaNode,
  inferFromNames: boolean,
): ToolPolicyInput {
  const properties = isRecord(schema.properties) ? schema.properties : {}
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  const args: Record<string, ArgSpecInput> = {}
  for (const [name, node] of Object.entries(properties)) {
    const hasDefault = isRecord(node) && 'default' in node
    const kind = inferFromNames ? kindFromName(tool.name, name) : undefined
    defineValue(args, name, argSpecFromSchema(node, required.has(name) && !hasDefault, kind))
  }
  const entry: ToolPolicyInput = { args }
  if (typeof tool.description === 'string' && tool.description !== '') {
    entry.description = tool.description
  }
  return entry
}

/**
 * Derives the `tools` section of a policy from tools' JSON Schemas, the same for every
 * framework: each argument is declared as `string`, `number`, `boolean`, `enum` or `array`
 * (anything else as `json`). Only the author knows which arguments are file paths or shell
 * commands: mark them in `overrides` (or let `inferFromNames` guess, then review), or they
 * are checked as plain strings. Throws `PolicyError` when a tool's schema is not an object,
 * or an override names an unknown tool or argument (a typo there would leave a path
 * unchecked). The adapters take their frameworks' tools (zod schemas) and call this.
 *
 * @example
 * ```ts
 * const tools = policyFromTools(
 *   [{ name: 'read_file', schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }],
 *   { overrides: { read_file: { args: { path: { type: 'path', access: 'read' } } } } },
 * )
 * // { read_file: { args: { path: { type: 'path', access: 'read' } } } }
 * ```
 */
export function policyFromTools(
  tools: readonly ToolDescription[],
  options: PolicyFromToolsOptions = {},
): Record<string, ToolPolicyInput> {
  const issues: PlanIssue[] = []
  const out: Record<string, ToolPolicyInput> = Object.create(null)
  for (const tool of tools) {
    const schema = tool.schema ?? { type: 'object', properties: {} }
    const isObject =
      (schema.type === 'object' || schema.type === undefined) &&
      (schema.properties === undefined || isRecord(schema.properties))
    if (!isObject) issues.push(notAnObject(tool.name))
    else defineValue(out, tool.name, toolEntry(tool, schema, options.inferFromNames === true))
  }
  issues.push(...applyToolOverrides(out, options.overrides ?? {}))
  if (issues.length > 0) throw new PolicyError(issues)
  return { ...out }
}
