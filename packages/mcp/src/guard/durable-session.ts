import {
  type AuthorizeResult,
  type GuardStore,
  PlanError,
  type PlanGuard,
  type PlanGuardState,
  type PlanIssue,
  type ResourceAuthorizeResult,
  type RunKeys,
} from '@plan/core'
import {
  createRunWriter,
  errorMessage,
  finishDurableCall,
  loadSavedState,
  saveGuardState,
  startDurableCall,
} from '@plan/core/adapter'

/** The guard store of one MCP session (see `McpGuardOptions.store`), or a no-op without one. */
export interface DurableSession {
  /** The state saved under `runId`, to resume from. */
  readonly restored: PlanGuardState | undefined
  /**
   * Before a call is forwarded: shared budgets, then the state saved; a refusal releases the
   * step. Answered at once when there is neither a store nor a shared budget.
   */
  start(
    guard: PlanGuard,
    tool: string,
    allowed: AuthorizeResult,
  ): AuthorizeResult | Promise<AuthorizeResult>
  /** Before a resource read is sent: the state saved with the read counted; a failure refuses it. */
  save(guard: PlanGuard): Promise<ResourceAuthorizeResult>
  /** After a call ended: the state saved, in the background (a failure keeps the state before). */
  finish(guard: PlanGuard): void
}

interface DurableOptions {
  readonly store?: GuardStore
  readonly runId?: string
  readonly keys?: RunKeys
}

/** Whether the guard's policy has a budget shared between runs. */
function hasSharedBudgets(guard: PlanGuard): boolean {
  const shared = guard.policy.budgets.shared
  return shared !== undefined && Object.keys(shared).length > 0
}

/** Loads the session's saved state and returns its write-ahead hooks. */
export async function createDurableSession(options: DurableOptions): Promise<DurableSession> {
  const { store, runId, keys } = options
  if (store !== undefined && (typeof runId !== 'string' || runId === '')) {
    throw new PlanError('The MCP guard needs a runId with a store.', {
      code: 'invalid_configuration',
    })
  }
  const saved = store === undefined ? undefined : await loadSavedState(store, runId as string)
  let revision = saved?.revision ?? 0
  const restored = saved?.state as PlanGuardState | undefined
  // This session is the run's one writer: a save after another writer's fails.
  const writer = createRunWriter(saved)
  const target =
    store === undefined
      ? undefined
      : { store, runId: runId as string, writer, nextRevision: () => ++revision }
  // What the call changed, not the whole state, where the store takes changes.
  const save = (guard: PlanGuard) =>
    target === undefined ? Promise.resolve() : saveGuardState(guard, target)
  const reserve = async (
    guard: PlanGuard,
    tool: string,
    allowed: AuthorizeResult & { allowed: true },
  ) => {
    const issues: readonly PlanIssue[] = await startDurableCall({
      store,
      runId: runId ?? '',
      policy: guard.policy,
      tool,
      stepId: allowed.stepId,
      ...(keys === undefined ? {} : { keys }),
      saved: { save: () => save(guard) },
    })
    if (issues.length === 0) return allowed
    guard.release(allowed.stepId)
    const refused: AuthorizeResult = { allowed: false, issue: issues[0] as PlanIssue, issues }
    return refused
  }
  return {
    restored,
    start(guard, tool, allowed) {
      if (!allowed.allowed) return allowed
      // Without a store, only a shared budget refuses (it needs one): none, nothing to wait for.
      if (store === undefined && !hasSharedBudgets(guard)) return allowed
      return reserve(guard, tool, allowed)
    },
    async save(guard) {
      if (store === undefined) return { allowed: true }
      try {
        await save(guard)
        return { allowed: true }
      } catch (error) {
        const issue: PlanIssue = {
          code: 'store_failed',
          message: `The guard store could not record the read before it was sent (${errorMessage(error)}); it was not sent.`,
          path: [],
          hint: 'Try again once the store is reachable.',
        }
        return { allowed: false, issue, issues: [issue] }
      }
    },
    finish(guard) {
      if (store !== undefined) void finishDurableCall(store, runId as string, () => save(guard))
    },
  }
}
