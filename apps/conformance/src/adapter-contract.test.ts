import * as aiSdk from '@plan/ai-sdk'
import * as aiSdkTest from '@plan/ai-sdk/test'
import type {
  AdapterGuardSettings,
  AdapterMode,
  AdapterOptions,
  CallDecisionEvent,
  DecisionEvent,
  GeneratePlanResult,
  GeneratePlanSharedOptions,
  PolicyFromToolsOptions,
  ToolCallStep,
  ToolPolicyInput,
} from '@plan/core'
import * as kit from '@plan/core/test'
import * as langchain from '@plan/langchain'
import * as langchainTest from '@plan/langchain/test'
import * as mcp from '@plan/mcp'
import type { ToolSet } from 'ai'
import { describe, expect, expectTypeOf, it } from 'vitest'

/** The contract every adapter's options satisfy: where the policy is, the plan, the listener, the guard settings. */
type AdapterContract<Event extends DecisionEvent = DecisionEvent> = AdapterOptions<Event> &
  AdapterGuardSettings

type LangChainOptions = langchain.PlanGuardMiddlewareOptions
type AiSdkOptions = aiSdk.CreatePlanGuardedToolsOptions<ToolSet>
type McpOptions = mcp.McpGuardOptions

/** The keys of the contract, with their types as the contract declares them. */
type ContractKeys = keyof AdapterGuardSettings | 'policy' | 'compiler' | 'plan' | 'onDecision'

// These assertions are checked by the type checker (`pnpm typecheck`); at run time they pass.
describe('the adapter contract', () => {
  it("should be satisfied by every adapter's options", () => {
    expectTypeOf<LangChainOptions>().toExtend<AdapterContract>()
    expectTypeOf<AiSdkOptions>().toExtend<AdapterContract>()
    expectTypeOf<McpOptions>().toExtend<AdapterContract<CallDecisionEvent>>()
  })

  it('should give every shared option the same name and type in every adapter', () => {
    expectTypeOf<Pick<LangChainOptions, ContractKeys>>().toEqualTypeOf<
      Pick<AdapterContract, ContractKeys>
    >()
    expectTypeOf<Pick<AiSdkOptions, ContractKeys>>().toEqualTypeOf<
      Pick<AdapterContract, ContractKeys>
    >()
    expectTypeOf<Pick<McpOptions, ContractKeys>>().toEqualTypeOf<
      Pick<AdapterContract<CallDecisionEvent>, ContractKeys>
    >()
  })

  it('should mask tools with the same option where a framework masks them', () => {
    expectTypeOf<LangChainOptions['maskTools']>().toEqualTypeOf<AiSdkOptions['maskTools']>()
  })

  it('should report the same decision events', () => {
    expectTypeOf<
      Parameters<NonNullable<LangChainOptions['onDecision']>>[0]
    >().toEqualTypeOf<DecisionEvent>()
    expectTypeOf<
      Parameters<NonNullable<AiSdkOptions['onDecision']>>[0]
    >().toEqualTypeOf<DecisionEvent>()
    // MCP has no turns: only the call event
    expectTypeOf<
      Parameters<NonNullable<McpOptions['onDecision']>>[0]
    >().toEqualTypeOf<CallDecisionEvent>()
  })

  it('should plan with the same options and result in every framework', () => {
    expectTypeOf<Omit<langchain.GeneratePlanOptions, 'model' | 'prompt'>>().toEqualTypeOf<
      Omit<GeneratePlanSharedOptions, never>
    >()
    expectTypeOf<Omit<aiSdk.GeneratePlanOptions, 'model' | 'prompt'>>().toEqualTypeOf<
      Omit<GeneratePlanSharedOptions, never>
    >()
    expectTypeOf(langchain.generatePlan).returns.toEqualTypeOf<Promise<GeneratePlanResult>>()
    expectTypeOf(aiSdk.generatePlan).returns.toEqualTypeOf<Promise<GeneratePlanResult>>()
  })

  it('should derive a policy from tools with the same options and result in every framework', () => {
    type Result = Promise<Record<string, ToolPolicyInput>>
    for (const policyFromTools of [
      langchain.policyFromTools,
      aiSdk.policyFromTools,
      mcp.policyFromTools,
    ] as const) {
      expectTypeOf(policyFromTools).parameter(1).toEqualTypeOf<PolicyFromToolsOptions | undefined>()
      expectTypeOf(policyFromTools).returns.toEqualTypeOf<Result>()
    }
  })

  it('should turn tool calls into the same steps', () => {
    expectTypeOf(langchain.stepsFromToolCalls).returns.toEqualTypeOf<ToolCallStep[]>()
    expectTypeOf(aiSdk.stepsFromToolCalls).returns.toEqualTypeOf<ToolCallStep[]>()
  })

  it('should name the modes as core does', () => {
    expectTypeOf<
      Awaited<ReturnType<typeof aiSdk.createPlanGuardedTools>>['mode']
    >().toExtend<AdapterMode>()
    expectTypeOf<mcp.McpCallGuard['mode']>().toExtend<AdapterMode>()
  })

  it('should share one test workspace and policy', () => {
    expect(langchainTest.createTestWorkspace).toBe(kit.createTestWorkspace)
    expect(aiSdkTest.createTestWorkspace).toBe(kit.createTestWorkspace)
    expect(langchainTest.testPolicy).toBe(kit.testPolicy)
    expect(aiSdkTest.testPolicy).toBe(kit.testPolicy)
  })
})
