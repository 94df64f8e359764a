import { z } from 'zod'
import { planObjectSchema } from './plan-schema.js'
import { policySchema } from './policy-schema.js'

/** JSON Schema of a plan (object form), for planner models and editors. */
export function planJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(planObjectSchema, { io: 'input', unrepresentable: 'any' })
}

/** JSON Schema of a policy file, for editors and `plan schema policy`. */
export function policyJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(policySchema, { io: 'input', unrepresentable: 'any' })
}
