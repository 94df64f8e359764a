export type { CommandChecker, CommandCheckerOptions } from '@plan/shell'
export { createCommandChecker } from '@plan/shell'
export type {
  CommandCheckResult,
  IssueCode,
  PathAccess,
  PathCheckResult,
  PathDenial,
  PathScope,
  PlanErrorOptions,
  PlanIssue,
} from '@plan/shell/common'
export { formatIssues, PlanError, PolicyError, REPOSITORY_CODE_PATHS } from '@plan/shell/common'
export type {
  AdapterGuardSettings,
  AdapterMode,
  AdapterOptions,
  AdapterPlan,
  PolicySource,
} from './adapter/adapter-options.js'
export type { ArgSpecInput, ToolPolicyInput } from './adapter/arg-spec-from-json-schema.js'
export type {
  GeneratePlanResult,
  GeneratePlanSharedOptions,
  PlanAttempt,
} from './adapter/generate-plan-result.js'
export type { PolicyFromToolsOptions } from './adapter/policy-from-tools.js'
export type { ToolCallStep } from './adapter/steps-from-tool-calls.js'
export type { ToolPolicyOverrides } from './adapter/tool-overrides.js'
export type { PlanCompilerOptions } from './compile/create-plan-compiler.js'
export { createPlanCompiler } from './compile/create-plan-compiler.js'
export type { RetryInterrupted } from './durable/authorize-interrupted.js'
export { createMemoryGuardStore } from './durable/create-memory-guard-store.js'
export type { SignedGuardStoreOptions } from './durable/create-signed-guard-store.js'
export { createSignedGuardStore } from './durable/create-signed-guard-store.js'
export type {
  BudgetReservation,
  GuardStore,
  ReserveResult,
  RunWriter,
  SavedRunChanges,
  SavedRunState,
} from './durable/guard-store.js'
export type { RunKeys } from './durable/shared-budget-reservations.js'
export { PlanCompilationError } from './errors/plan-compilation-error.js'
export type {
  ExecutePlanOptions,
  ExecutionResult,
  ExecutionStepResult,
} from './execute/execute-plan.js'
export { executePlan } from './execute/execute-plan.js'
export type {
  ExecutionEvent,
  ExecutionStatus,
  ExecutionStepStatus,
} from './execute/execution-event.js'
export type {
  ModelStepComplete,
  ModelStepRequest,
  ModelStepTools,
  ModelStepToolsOptions,
} from './extract/create-model-step-tools.js'
export { createModelStepTools } from './extract/create-model-step-tools.js'
export type { ExtractionSchemaInput } from './extract/extraction-schema.js'
export { modelStepToolPolicy } from './extract/model-step-policy.js'
export type {
  ExtractionScalarSchema,
  ExtractionSchema,
} from './extract/read-extraction-schema.js'
export { createPlanGuard } from './guard/create-plan-guard.js'
export type { PlanInput } from './plan/define-plan.js'
export { definePlan } from './plan/define-plan.js'
export type {
  PolicyCase,
  PolicyCaseChecker,
  PolicyCaseResult,
  PolicyDecision,
} from './policy/decide-policy-case.js'
export { decidePolicyCase } from './policy/decide-policy-case.js'
export { definePolicy } from './policy/define-policy.js'
export type { CommandPolicy, ProgramRule } from './schema/command-policy.js'
export type { Plan, PlanStep } from './schema/plan-schema.js'
export type {
  Approval,
  ArgSpec,
  AuditPolicy,
  Budgets,
  DeclassifySchema,
  McpPolicy,
  Policy,
  PolicyInput,
  SandboxLimitsPolicy,
  SandboxPolicy,
  SharedBudget,
  ToolOutput,
  ToolPolicy,
  Trust,
  Workspace,
} from './schema/policy-schema.js'
export type { TaintedPolicy, TaintedPolicyInput } from './schema/tainted-schema.js'
export { signPlan } from './sign/sign-plan.js'
export type { PlanSignatureCheck } from './sign/verify-plan.js'
export { verifyPlan } from './sign/verify-plan.js'
export { ruleOfTwo, SENSITIVE_FILES } from './taint/tainted-presets.js'
export type { AuditEvent, AuditRecord } from './types/audit-event.js'
export type { AuditSink } from './types/audit-sink.js'
export type { CompiledPlan, CompiledStep, StepReference } from './types/compiled-plan.js'
export type {
  CallDecisionEvent,
  DecisionEvent,
  TurnDecisionEvent,
} from './types/decision-event.js'
export type { InterruptedCall } from './types/interrupted-call.js'
export type { JsonObject, JsonValue } from './types/json-value.js'
export type { PlanCompiler, PlanValidationResult } from './types/plan-compiler.js'
export type {
  AuthorizeResult,
  PlanGuard,
  PlanGuardOptions,
  PlanGuardState,
  ResolveArgsResult,
  ResourceAuthorizeResult,
  ResourceRequest,
  StepStatus,
  SubmitKind,
  SubmitOptions,
  SubmitResult,
  ToolCall,
} from './types/plan-guard.js'
export type { PlanObject } from './types/plan-object.js'
export type { ResolvedPolicy, ResolvePolicyOptions } from './types/resolved-policy.js'
export type { SavedStateChanges } from './types/saved-state-changes.js'
export type { TaintState } from './types/taint-state.js'
export type { ToolContext, ToolFunction } from './types/tool-function.js'
export type { TrustLabel, UntrustedFlowState } from './types/untrusted-flow.js'
