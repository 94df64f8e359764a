import type { ArgSpec, ToolPolicy } from '@plan/core'

/** True when an argument (or an array's items) lets the tool write files or run a program. */
function changesThings(spec: ArgSpec): boolean {
  if (spec.type === 'array') return changesThings(spec.items)
  return (spec.type === 'path' && spec.access === 'write') || spec.type === 'command'
}

/** True when an argument (or an array's items) names a network destination. */
function reachesOut(spec: ArgSpec): boolean {
  if (spec.type === 'array') return reachesOut(spec.items)
  return spec.type === 'string' && spec.format === 'url'
}

/**
 * A tool's annotations as the client is shown them: the server's, never looser than the
 * policy allows. A tool the policy lets write a path or run a command is not read-only and may
 * be destructive; one it lets reach a URL is open-world. Hints the policy says nothing about
 * are kept; none is ever made looser than the server declared.
 */
export function shownAnnotations(
  entry: ToolPolicy,
  annotations: unknown,
): Record<string, unknown> | undefined {
  const declared =
    typeof annotations === 'object' && annotations !== null && !Array.isArray(annotations)
      ? (annotations as Record<string, unknown>)
      : undefined
  const specs = Object.values(entry.args)
  const writes = specs.some(changesThings)
  const network = specs.some(reachesOut)
  if (!writes && !network) return declared
  return {
    ...declared,
    ...(writes ? { readOnlyHint: false, destructiveHint: true } : {}),
    ...(network ? { openWorldHint: true } : {}),
  }
}
