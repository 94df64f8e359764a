import { valueAt } from '@plan/shell/common'
import type { ArgSpec, ToolPolicy } from '../schema/policy-schema.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'

/** One string argument with the role its declaration gives it, and where it is in the call. */
export interface RoleValue {
  readonly role: 'read' | 'write' | 'command' | 'url'
  readonly value: string
  readonly path: readonly (string | number)[]
}

function collect(
  spec: ArgSpec,
  value: JsonValue,
  path: readonly (string | number)[],
  out: RoleValue[],
): void {
  if (spec.type === 'array') {
    if (Array.isArray(value))
      value.forEach((item, index) => {
        collect(spec.items, item, [...path, index], out)
      })
    return
  }
  if (typeof value !== 'string') return
  if (spec.type === 'command') out.push({ role: 'command', value, path })
  else if (spec.type === 'path')
    out.push({ role: spec.access === 'write' ? 'write' : 'read', value, path })
  else if (spec.type === 'string' && spec.format === 'url') out.push({ role: 'url', value, path })
}

/** The path, command and URL arguments of a call, by role, in the order of the tool's arguments. */
export function roleValues(tool: ToolPolicy, args: JsonObject): RoleValue[] {
  const out: RoleValue[] = []
  for (const name of Object.keys(tool.args))
    if (Object.hasOwn(args, name))
      collect(valueAt(tool.args, name), valueAt(args, name), [name], out)
  return out
}
