import { readJsonSchema } from '@plan/json'
import type { Policy } from '../schema/policy-schema.js'
import POLICY_JSON_SCHEMA from './policy-schema.generated.json' with { type: 'json' }

/**
 * Reads a policy without zod, from the JSON Schema generated from `policySchema`: the same result
 * as `policySchema.parse(input)`, or `undefined` when `policySchema` must decide (an invalid one,
 * so its issues come from the schema; what JSON Schema cannot say: URL formats, prototype keys).
 */
export function parsePolicyFast(input: unknown): Policy | undefined {
  return readJsonSchema<Policy>(POLICY_JSON_SCHEMA, input)
}
