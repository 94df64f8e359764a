import { ReducedValue, StateSchema } from '@langchain/langgraph'
import type { AgentMiddleware } from 'langchain'
import { z } from 'zod'
import { keepFreshestRunState, type PlanGuardRunState } from './run-state.js'

/** The middleware's private agent state. */
export const planGuardStateSchema = new StateSchema({
  /** Which in-memory guard serves this run; private, so callers cannot set it. */
  _planGuardRunId: z.string().optional(),
  /**
   * The run's guard state, to resume it in another process; private. Parallel tool calls each
   * write it: the reducer keeps the freshest.
   */
  _planGuardState: new ReducedValue(
    // Only shaped here (LangChain parses it at every hook); `readRunState` checks it on restore.
    z
      .custom<PlanGuardRunState>(
        (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
      )
      .optional(),
    { reducer: keepFreshestRunState },
  ),
})

/** The private state keys of the middleware; nothing but the middleware may write them. */
export const PRIVATE_KEYS: ReadonlySet<string> = new Set(['_planGuardRunId', '_planGuardState'])

/** The middleware's keys as a hook reads them from the agent state. */
export interface PlanGuardFields {
  readonly _planGuardRunId?: string | undefined
  readonly _planGuardState?: PlanGuardRunState | undefined
  readonly messages?: readonly { readonly id?: string | undefined }[] | undefined
}

type Hooks = AgentMiddleware<typeof planGuardStateSchema>
type ModelHook = NonNullable<Hooks['wrapModelCall']>
type ToolHook = NonNullable<Hooks['wrapToolCall']>

/** What the middleware's `wrapModelCall` receives. */
export type GuardModelRequest = Parameters<ModelHook>[0]
/** The next `wrapModelCall` handler, down to the model. */
export type GuardModelHandler = Parameters<ModelHook>[1]
/** What the middleware's `wrapToolCall` receives. */
export type GuardToolRequest = Parameters<ToolHook>[0]
/** The next `wrapToolCall` handler, down to the tool. */
export type GuardToolHandler = Parameters<ToolHook>[1]
