export type {
  ApprovalToolCall,
  PlanToolApprovalFunction,
  PlanToolApprovalOptions,
} from './approval/plan-tool-approval.js'
export { planToolApproval } from './approval/plan-tool-approval.js'
export { policyFromTools } from './convert/policy-from-tools.js'
export type { ToolCallLike } from './convert/steps-from-tool-calls.js'
export { stepsFromToolCalls } from './convert/steps-from-tool-calls.js'
export type {
  AiSdkGuardSettings,
  CreatePlanGuardedToolsOptions,
  PlanGuardedTools,
} from './guarded/create-plan-guarded-tools.js'
export { createPlanGuardedTools } from './guarded/create-plan-guarded-tools.js'
export type { PlanPrepareStepOptions } from './loop/plan-prepare-step.js'
export { planPrepareStep } from './loop/plan-prepare-step.js'
export type { PlanStopWhenOptions } from './loop/plan-stop-when.js'
export { planStopWhen } from './loop/plan-stop-when.js'
export type { GeneratePlanOptions } from './planner/generate-plan.js'
export { generatePlan } from './planner/generate-plan.js'
export type { GuardToolsOptions } from './tools/guard-tools.js'
export { guardTools } from './tools/guard-tools.js'
export type { PlanTurnMiddlewareOptions } from './turn/plan-turn-middleware.js'
export { planTurnMiddleware } from './turn/plan-turn-middleware.js'
