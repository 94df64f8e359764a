import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import {
  type DecisionEvent,
  type GuardStore,
  PlanError,
  type RetryInterrupted,
  type RunKeys,
} from '@plan/core'
import { countOption } from '@plan/core/adapter'
import { reportDecision } from '../telemetry/report-decision.js'
import { lazyGuardSetup } from './guard-setup.js'
import { guardStoreFromLangGraph, isLangGraphStore } from './langgraph-guard-store.js'
import type { PlanGuardExitBehavior, PlanGuardMiddlewareOptions } from './plan-guard-options.js'
import { RunRegistry } from './run-registry.js'

const EXIT_BEHAVIORS: readonly PlanGuardExitBehavior[] = ['continue', 'error', 'end']
const DEFAULT_MAX_LIVE_RUNS = 10_000

/** The middleware's options with their defaults, and the runs it serves. */
export interface GuardConfig {
  /** The middleware's name, which LangChain uses in its graph nodes' names. */
  readonly name: string
  readonly exitBehavior: PlanGuardExitBehavior
  readonly planMode: boolean
  readonly maskTools: boolean
  readonly describePlan: boolean
  readonly extractionModel: BaseChatModel | undefined
  /** `store`, or else the agent's LangGraph store once a hook has seen it (see {@link bindAgentStore}). */
  store: GuardStore | undefined
  /** True when the middleware was given no store: it uses the agent's, if it has one. */
  readonly usesAgentStore: boolean
  readonly keys: RunKeys | undefined
  readonly retryInterrupted: RetryInterrupted | undefined
  readonly report: (decision: DecisionEvent) => void
  readonly runs: RunRegistry
  /**
   * Runs start at model calls, without a `beforeAgent` node: true unless a `beforeModel` hook
   * (`exitBehavior: 'error'`, an `extractionModel`) needs the run before the model call.
   */
  readonly startsAtModelCall: boolean
}

/** Checks the options (throws `PlanError` with `invalid_configuration`) and fills in defaults. */
export function guardConfig(options: PlanGuardMiddlewareOptions): GuardConfig {
  const exitBehavior = options.exitBehavior ?? 'continue'
  if (!EXIT_BEHAVIORS.includes(exitBehavior)) {
    throw new PlanError(
      `exitBehavior must be one of ${EXIT_BEHAVIORS.map((value) => JSON.stringify(value)).join(', ')}, got ${JSON.stringify(exitBehavior)}.`,
      { code: 'invalid_configuration' },
    )
  }
  const maxLiveRuns = countOption('maxLiveRuns', options.maxLiveRuns, DEFAULT_MAX_LIVE_RUNS)
  const { onDecision } = options
  const planMode = options.plan !== undefined
  const config: GuardConfig = {
    name: 'PlanGuardMiddleware',
    exitBehavior,
    planMode,
    maskTools: options.maskTools ?? true,
    describePlan: options.describePlan ?? true,
    extractionModel: options.extractionModel,
    store: options.store,
    usesAgentStore: options.store === undefined,
    keys: options.keys,
    retryInterrupted: options.retryInterrupted,
    report: (decision) => reportDecision(decision, onDecision),
    runs: new RunRegistry({
      setup: lazyGuardSetup(options, 'planGuardMiddleware'),
      store: () => config.store,
      guardOptions: {
        checkPathsOnDisk: options.checkPathsOnDisk ?? true,
        ...(options.audit === undefined ? {} : { audit: options.audit }),
        ...(options.labelledFiles === undefined ? {} : { labelledFiles: options.labelledFiles }),
      },
      maxLiveRuns,
    }),
    startsAtModelCall:
      exitBehavior !== 'error' && !(planMode && options.extractionModel !== undefined),
  }
  return config
}

/**
 * With no `store` option, the agent's LangGraph store (`createAgent({ store })`, e.g. a
 * `PostgresStore`) becomes the guard store when a hook first sees it in its runtime.
 */
export function bindAgentStore(config: GuardConfig, runtime: unknown): void {
  if (!config.usesAgentStore || typeof runtime !== 'object' || runtime === null) return
  const agentStore = (runtime as { readonly store?: unknown }).store
  if (isLangGraphStore(agentStore)) config.store = guardStoreFromLangGraph(agentStore)
}
