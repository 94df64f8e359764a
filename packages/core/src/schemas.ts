// `@plan/core/schemas`: the zod schemas of plans and policies and their JSON Schemas. Kept apart
// from the main entry so that a compiler starts without loading zod.

export { extractionSchema } from './extract/extraction-schema.js'
export { planSchemaForPolicy } from './plan/plan-schema-for-policy.js'
export { resolvePolicy } from './policy/resolve-policy.js'
export { commandPolicySchema, programRuleSchema } from './schema/command-policy.js'
export { guardStateJsonSchema, guardStateSchema } from './schema/guard-state-schema.js'
export { planJsonSchema, policyJsonSchema } from './schema/plan-json-schema.js'
export { planObjectSchema, planSchema, stepSchema } from './schema/plan-schema.js'
export {
  approvalSchema,
  argSpecSchema,
  auditSchema,
  budgetsSchema,
  declassifySchema,
  mcpPolicySchema,
  policySchema,
  sandboxLimitsSchema,
  sandboxPolicySchema,
  sharedBudgetSchema,
  toolOutputSchema,
  toolPolicySchema,
  trustSchema,
  workspaceSchema,
} from './schema/policy-schema.js'
export { taintedSchema } from './schema/tainted-schema.js'
export { untrustedFlowStateSchema } from './schema/untrusted-flow-state-schema.js'
