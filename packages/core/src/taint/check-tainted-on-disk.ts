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
  const fs = await loadNodeBuiltin<{ realpath(path: string): Promise<string> }>('node:fs/promises')
  const roots = await Promise.all(
    compiler.policy.scope.roots.map((root) =>
      fs === undefined ? root : fs.realpath(root).catch(() => root),
    ),
  )
  return checkTaintedCall(compiler, tool, stepId, resolvedArgs, state, roots)
}
