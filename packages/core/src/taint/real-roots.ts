import { loadNodeBuiltin } from '@plan/shell/common'
import type { PlanCompiler } from '../types/plan-compiler.js'

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
