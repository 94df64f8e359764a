import type { JsonObject } from '../types/json-value.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { TaintState } from '../types/taint-state.js'
import { loadNodeBuiltin } from '../util/node-builtin.js'
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
  const fs = await loadNodeBuiltin<{ realpath(path: string): Promise<string> }>('node:fs/promises')
  return Promise.all(
    compiler.policy.scope.roots.map((root) =>
      fs === undefined ? root : fs.realpath(root).catch(() => root),
    ),
  )
}
