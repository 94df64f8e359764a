// `@plan/core/schemas`: the zod schemas of plans and policies and their JSON Schemas. Kept apart
// from the main entry so that a compiler starts without loading zod.
export { commandPolicySchema, programRuleSchema } from './command/command-policy.js'
export { extractionSchema } from './extract/extraction-schema.js'
export { guardStateJsonSchema, guardStateSchema } from './guard/guard-state-schema.js'
export { planJsonSchema, policyJsonSchema } from './plan/plan-json-schema.js'
export { planObjectSchema, planSchema, stepSchema } from './plan/plan-schema.js'
export { planSchemaForPolicy } from './plan/plan-schema-for-policy.js'
export {
  approvalSchema,
  argSpecSchema,
  auditSchema,
  budgetsSchema,
  declassifySchema,
  policySchema,
  sandboxPolicySchema,
  sharedBudgetSchema,
  toolOutputSchema,
  toolPolicySchema,
  trustSchema,
  workspaceSchema,
} from './policy/policy-schema.js'
export { resolvePolicy } from './policy/resolve-policy.js'
export { taintedSchema } from './policy/tainted-schema.js'
