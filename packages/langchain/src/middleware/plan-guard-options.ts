import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import type { AdapterGuardSettings, AdapterOptions, DecisionEvent } from '@plan/core'

/**
 * What happens when the guard denies a call: `continue` answers it with an error and lets the
 * model go on; `end` answers it and ends the run; `error` answers it and throws a `PlanError`.
 * A stopped run (an exhausted budget, a loop, the deadline) ends under `continue` too.
 */
export type PlanGuardExitBehavior = 'continue' | 'error' | 'end'

/**
 * Options for {@link planGuardMiddleware}: the options every `@plan` adapter takes (exactly one
 * of `policy` or `compiler`, an optional approved `plan` for plan mode, `onDecision`), the guard
 * settings every adapter takes (`checkPathsOnDisk`, `audit`, `store`, `keys`,
 * `retryInterrupted`, `labelledFiles`), and these. Without a `plan`, each model turn's tool calls are checked as
 * a plan (per-turn mode); a plan is compiled when the first run starts, a `CompiledPlan` is
 * compiled again against the policy. `onDecision` is called with every decision, for logs and
 * audits; a throw there fails the call.
 *
 * With a `store`, the store is the run's source of truth: every state written into the agent
 * state is saved there first, a run resumes from the store's state, and a checkpoint state the
 * store did not save is refused (`state_corrupt`). Without one, the agent's LangGraph store
 * (`createAgent({ store })`) is used when it has one; else the state lives only in the agent
 * state, which the checkpointer saves after the tools ran, so a crash during a call loses the
 * call from the count.
 */
export type PlanGuardMiddlewareOptions = AdapterOptions<DecisionEvent> &
  AdapterGuardSettings &
  LangChainGuardSettings

/** The options of {@link planGuardMiddleware} that are its own. */
export interface LangChainGuardSettings {
  /** Default `continue`. */
  readonly exitBehavior?: PlanGuardExitBehavior
  /**
   * Hide from the model the tools that cannot run: in plan mode, every tool no ready step
   * needs; in per-turn mode, every tool the policy does not list. Default true.
   */
  readonly maskTools?: boolean
  /** Plan mode: tell the model, in the system prompt, which steps are ready. Default true. */
  readonly describePlan?: boolean
  /**
   * Plan mode: the model that runs the plan's `extract` and `generate` steps, with no tools
   * (see `modelStepToolPolicy`). They run before each model call, never through the agent's model.
   */
  readonly extractionModel?: BaseChatModel
  /**
   * The most runs one agent invocation keeps in memory (an agent run again and again inside one
   * long-lived graph); beyond it the oldest is dropped, and restored from its saved state if it
   * comes back. A run leaves memory with its invocation, however the invocation ends. Default
   * 10 000.
   */
  readonly maxLiveRuns?: number
}
