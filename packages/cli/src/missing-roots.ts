import { stat } from 'node:fs/promises'
import type { ResolvedPolicy } from '@plan/core'

/** Something suspicious that does not change the verdict. */
export interface CliWarning {
  readonly code: 'workspace_root_missing' | 'workspace_root_not_directory'
  readonly message: string
  readonly path: readonly (string | number)[]
}

/**
 * A warning per workspace root that does not exist or is not a folder: the plan is still
 * checked lexically, but nothing inside such a root can be read, and a typo in a root passes
 * silently otherwise.
 */
export async function missingRoots(resolved: ResolvedPolicy): Promise<CliWarning[]> {
  const warnings: CliWarning[] = []
  const roots = resolved.scope.roots
  for (const [index, root] of roots.entries()) {
    const path = ['workspace', 'roots', index]
    const found = await stat(root).catch(() => undefined)
    if (found === undefined)
      warnings.push({
        code: 'workspace_root_missing',
        message: `workspace root ${root} does not exist`,
        path,
      })
    else if (!found.isDirectory())
      warnings.push({
        code: 'workspace_root_not_directory',
        message: `workspace root ${root} is not a folder`,
        path,
      })
  }
  return warnings
}
