export type {
  LLMCompilerParseResult,
  ParseLLMCompilerPlanOptions,
} from './convert/parse-llm-compiler-plan.js'
export { parseLLMCompilerPlan } from './convert/parse-llm-compiler-plan.js'
export type { DescribedTool } from './convert/policy-from-tools.js'
export { policyFromTools } from './convert/policy-from-tools.js'
export type { LangChainToolCall, ToolCallSource } from './convert/steps-from-tool-calls.js'
export { stepsFromToolCalls } from './convert/steps-from-tool-calls.js'
export { planGuardMiddleware } from './middleware/plan-guard-middleware.js'
export type {
  LangChainGuardSettings,
  PlanGuardExitBehavior,
  PlanGuardMiddlewareOptions,
} from './middleware/plan-guard-options.js'
export type { PlanGuardRunState } from './middleware/run-state.js'
export type { GeneratePlanOptions } from './planner/generate-plan.js'
export { generatePlan } from './planner/generate-plan.js'
export type { PlanAndRunOptions, PlanAndRunResult } from './planner/plan-and-run.js'
export { planAndRun } from './planner/plan-and-run.js'
