import { valueAt } from '@plan/shell/common'
import type { ArgSpec, ToolPolicy } from '../schema/policy-schema.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'

/** One string argument with the role its declaration gives it, and where it is in the call. */
export interface RoleValue {
  readonly role: 'read' | 'write' | 'command' | 'url'
  readonly value: string
  readonly path: readonly (string | number)[]
}

/** Called with each argument whose declaration gives it a role, whatever its value. */
type RoleVisit = (
  role: RoleValue['role'],
  value: JsonValue,
  path: readonly (string | number)[],
) => void

function visit(
  spec: ArgSpec,
  value: JsonValue,
  path: readonly (string | number)[],
  found: RoleVisit,
) {
  if (spec.type === 'array') {
    if (Array.isArray(value))
      value.forEach((item, index) => {
        visit(spec.items, item, [...path, index], found)
      })
    return
  }
  if (spec.type === 'command') found('command', value, path)
  else if (spec.type === 'path') found(spec.access === 'write' ? 'write' : 'read', value, path)
  else if (spec.type === 'string' && spec.format === 'url') found('url', value, path)
}

/**
 * Walks the path, command and URL arguments of a call (arrays of them item by item) in the order
 * of the tool's arguments, whatever their values (a `$ref` object in a plan).
 */
export function visitRoles(tool: ToolPolicy, args: JsonObject, found: RoleVisit): void {
  for (const name of Object.keys(tool.args))
    if (Object.hasOwn(args, name))
      visit(valueAt(tool.args, name), valueAt(args, name), [name], found)
}

/** The path, command and URL arguments of a call, by role, in the order of the tool's arguments. */
export function roleValues(tool: ToolPolicy, args: JsonObject): RoleValue[] {
  const out: RoleValue[] = []
  visitRoles(tool, args, (role, value, path) => {
    if (typeof value === 'string') out.push({ role, value, path })
  })
  return out
}
