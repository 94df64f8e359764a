import { loadNodeBuiltin } from '@plan/shell/common'
import type { JsonObject } from '../types/json-value.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { TaintState } from '../types/taint-state.js'
import { checkTaintedCall, type TaintedCallCheck } from './check-tainted-call.js'

/**
 * {@link checkTaintedCall} on arguments whose paths were resolved on disk (symbolic links
 * followed), against the real workspace roots: a link under `src/` that leads to a file the
 * lists do not allow is refused, and one that leads to a sensitive file counts as reading it.
 */
export async function checkTaintedOnDisk(
  compiler: PlanCompiler,
  tool: string,
  stepId: string,
  resolvedArgs: JsonObject,
  state: TaintState,
): Promise<TaintedCallCheck> {
  return checkTaintedCall(compiler, tool, stepId, resolvedArgs, state, await realRoots(compiler))
}

/** The workspace roots with symbolic links resolved (as given where that fails). */
export async function realRoots(compiler: PlanCompiler): Promise<string[]> {
  // Synchronous: one system call per root, far cheaper than a round trip through the thread pool.
  const fs = await loadNodeBuiltin<{ realpathSync: { native(path: string): string } }>('node:fs')
  return compiler.policy.scope.roots.map((root) => {
    if (fs === undefined) return root
    try {
      return fs.realpathSync.native(root)
    } catch {
      return root
    }
  })
}
