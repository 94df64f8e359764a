import { type PathAccess, valueAt } from '@plan/shell/common'
import type { ArgSpec } from '../schema/policy-schema.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'

/** One path-typed value inside a call's arguments. */
export interface PathArgument {
  /** Where it sits in the arguments object, e.g. `["files", 2]`. */
  readonly path: readonly (string | number)[]
  readonly value: JsonValue
  readonly access: PathAccess
}

function collect(
  spec: ArgSpec,
  value: JsonValue,
  path: (string | number)[],
  out: PathArgument[],
): void {
  if (spec.type === 'path') {
    out.push({ path, value, access: spec.access })
  } else if (spec.type === 'array' && Array.isArray(value)) {
    value.forEach((item, index) => {
      collect(spec.items, item, [...path, index], out)
    })
  }
}

/** Lists the path-typed values of a call's arguments, from the tool's declared argument specs. */
export function pathArguments(
  specs: Readonly<Record<string, ArgSpec>>,
  args: JsonObject,
): PathArgument[] {
  const out: PathArgument[] = []
  for (const name of Object.keys(specs)) {
    const spec = valueAt(specs, name)
    if (Object.hasOwn(args, name)) collect(spec, valueAt(args, name), [name], out)
  }
  return out
}
