import type { PolicyInput } from '@plan/core'

/** A tool as `tools/list` describes it (only what the generator reads). */
export interface ListedTool {
  readonly name: string
  readonly description?: string | undefined
  readonly inputSchema?: { readonly properties?: object; readonly required?: readonly string[] }
}

/** Options for {@link policyFromTools}. */
export interface PolicyFromToolsOptions {
  /** The workspace root written into the policy (relative roots resolve against the file). */
  readonly root: string
}

type ArgInput = NonNullable<PolicyInput['tools'][string]['args']>[string]
type JsonSchema = Record<string, unknown>

/** Last words of property names that hold paths (`path`, `filePath`, `source_dir`, …). */
const PATH_WORDS = new Set(
  'path paths file files filename filepath dir dirs directory directories folder source destination dest target cwd root'.split(
    ' ',
  ),
)
const COMMAND_NAME = /^(command|cmd|commandline|command_line|shell_command|script)$/i
const WRITING_TOOL =
  /(write|edit|create|delete|remove|move|rename|mkdir|update|save|append|put|patch|upload|copy|touch)/i

/** What a property's value is, from its JSON Schema type (the first non-null one). */
function typeOf(schema: JsonSchema): string | undefined {
  const type = schema.type
  if (typeof type === 'string') return type
  if (Array.isArray(type)) return type.find((entry) => entry !== 'null')
  if (Array.isArray(schema.enum)) return 'enum'
  return undefined
}

/** True when the last word of a property name (camelCase, snake_case or kebab-case) names a path. */
function isPathName(name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[\s_-]+/)
  return PATH_WORDS.has((words[words.length - 1] ?? '').toLowerCase())
}

function stringArg(name: string, schema: JsonSchema, access: 'read' | 'write'): ArgInput {
  if (COMMAND_NAME.test(name)) return { type: 'command' }
  if (isPathName(name) || schema.format === 'path') return { type: 'path', access }
  if (Array.isArray(schema.enum) && schema.enum.every((value) => typeof value === 'string'))
    return { type: 'enum', values: schema.enum as string[] }
  return typeof schema.maxLength === 'number'
    ? { type: 'string', maxLength: schema.maxLength }
    : { type: 'string' }
}

function numberArg(schema: JsonSchema, integer: boolean): ArgInput {
  return {
    type: 'number',
    ...(integer ? { integer: true } : {}),
    ...(typeof schema.minimum === 'number' ? { minimum: schema.minimum } : {}),
    ...(typeof schema.maximum === 'number' ? { maximum: schema.maximum } : {}),
  }
}

/** The argument declaration guessed from one property of a tool's input schema. */
function argFromSchema(name: string, schema: JsonSchema, access: 'read' | 'write'): ArgInput {
  switch (typeOf(schema)) {
    case 'string':
      return stringArg(name, schema, access)
    case 'integer':
      return numberArg(schema, true)
    case 'number':
      return numberArg(schema, false)
    case 'boolean':
      return { type: 'boolean' }
    case 'enum': {
      const values = (schema.enum as unknown[]).filter(
        (value): value is string | number | boolean =>
          ['string', 'number', 'boolean'].includes(typeof value),
      )
      return values.length > 0 ? { type: 'enum', values } : { type: 'json' }
    }
    case 'array': {
      const items = typeof schema.items === 'object' && schema.items !== null ? schema.items : {}
      const item = argFromSchema(name, items as JsonSchema, access)
      return item.type === 'json' ? { type: 'json' } : { type: 'array', items: item }
    }
    default:
      return { type: 'json' }
  }
}

function firstSentence(text: string | undefined): string | undefined {
  if (text === undefined) return undefined
  const sentence = text.split(/(?<=\.)\s/)[0]?.trim() ?? ''
  return sentence.length > 160 ? `${sentence.slice(0, 159)}…` : sentence || undefined
}

/**
 * A starting policy for the tools a server lists: path-like properties become `path`
 * arguments (`write` access when the tool's name says it changes files, else `read`), command
 * strings become `command` arguments, other properties keep their JSON Schema type. The user
 * narrows it: remove tools, tighten arguments, add programs to `commands.allow`.
 *
 * @example
 * ```ts
 * const { tools } = await client.listTools()
 * const policy = policyFromTools(tools, { root: '.' })
 * // { version: 1, workspace: { roots: ['.'], … }, tools: { read_text_file: { args: { path: { type: 'path', access: 'read' } } } }, … }
 * ```
 */
export function policyFromTools(
  tools: readonly ListedTool[],
  options: PolicyFromToolsOptions,
): PolicyInput {
  const entries = [...tools]
    .sort((left, right) => left.name.localeCompare(right.name))
    .map((tool) => {
      const access = WRITING_TOOL.test(tool.name) ? 'write' : 'read'
      const properties = (tool.inputSchema?.properties ?? {}) as Record<string, JsonSchema>
      const required = new Set(tool.inputSchema?.required ?? [])
      const args: Record<string, ArgInput> = {}
      for (const [name, schema] of Object.entries(properties)) {
        const arg = argFromSchema(
          name,
          typeof schema === 'object' && schema !== null ? schema : {},
          access,
        )
        args[name] = required.has(name) ? arg : { ...arg, required: false }
      }
      const description = firstSentence(tool.description)
      return [tool.name, { ...(description === undefined ? {} : { description }), args }] as const
    })
  return {
    $comment: [
      '@plan policy generated by `plan-mcp init` from the server’s tools: narrow it before use.',
      'Remove the tools the agent does not need; a tool not listed here is hidden and refused.',
      'Path arguments must resolve inside workspace.roots; check each `access` (read or write).',
      'Command arguments run only the programs in commands.allow (empty: none).',
    ],
    version: 1,
    workspace: { roots: [options.root], readOnly: ['.git'], deny: ['.env'] },
    tools: Object.fromEntries(entries),
    commands: { allow: [] },
  }
}
