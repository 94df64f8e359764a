import type { ArgSpec } from '../schema/policy-schema.js'

/** True when an argument is a `command`, or a list of them at any depth. */
export function declaresCommand(spec: ArgSpec): boolean {
  return spec.type === 'command' || (spec.type === 'array' && declaresCommand(spec.items))
}
