import { isRecord, valueAt } from '@plan/shell/common'
import { matchesNumberSchema } from '../extract/read-extraction-schema.js'
import { policyPattern } from '../policy/policy-pattern.js'
import type { DeclassifySchema } from '../schema/policy-schema.js'

/**
 * Whether a step's output has exactly the narrow shape a declassifier declares: finite numbers
 * within bounds, booleans, enum values, short strings matching the whole pattern, and arrays or
 * objects (all properties present, no other key) of them. Else it stays untrusted (fail closed).
 */
export function matchesDeclassifySchema(
  spec: DeclassifySchema,
  value: unknown,
  depth = 0,
): boolean {
  if (depth > 32) return false
  switch (spec.type) {
    case 'number':
      return matchesNumberSchema(spec, value)
    case 'boolean':
      return typeof value === 'boolean'
    case 'enum':
      return spec.values.some((allowed) => allowed === value)
    case 'string': {
      if (typeof value !== 'string' || value.length > spec.maxLength) return false
      return policyPattern(spec).test(value)
    }
    case 'array':
      return (
        Array.isArray(value) &&
        value.length <= spec.maxItems &&
        value.every((item) => matchesDeclassifySchema(spec.items, item, depth + 1))
      )
    case 'object': {
      if (!isRecord(value)) return false
      const keys = Object.keys(value)
      const names = Object.keys(spec.properties)
      if (keys.length !== names.length) return false
      return names.every(
        (name) =>
          Object.hasOwn(value, name) &&
          matchesDeclassifySchema(valueAt(spec.properties, name), value[name], depth + 1),
      )
    }
  }
}
