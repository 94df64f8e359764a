/** The policy list a protected path comes from. */
export type ProtectedList = 'workspace.deny' | 'workspace.readOnly'

/**
 * Where a path sits relative to the protected entry that holds it, without saying "X is under
 * X": `/app/.env, which is in workspace.deny` for the entry itself, `/app/secrets/key, under
 * /app/secrets, which is in workspace.deny` for a path inside it.
 */
export function placeInList(path: string, entry: string, list: ProtectedList): string {
  return path === entry
    ? `${path}, which is in ${list}`
    : `${path}, under ${entry}, which is in ${list}`
}

/** The hint for a path under a `workspace.deny` entry: what to do, and the line that decides. */
export function deniedHint(entry: string): string {
  return `Use a path outside ${entry}; only removing ${entry} from workspace.deny would allow it.`
}

/** The hint for a write under a `workspace.readOnly` entry. */
export function readOnlyHint(entry: string): string {
  return `Read ${entry} if you need it, and write elsewhere in the workspace; only removing ${entry} from workspace.readOnly would allow the write.`
}

/**
 * The hint for a path outside every root: the nearest allowed form (the same name inside the
 * first root) and the policy line that would allow the path itself.
 */
export function outsideHint(resolved: string, roots: readonly string[], first: string): string {
  const name = resolved.slice(resolved.lastIndexOf('/') + 1)
  const nearest = name === '' ? '.' : name
  const inside = nearest === '.' ? first : `${first.replace(/\/$/, '')}/${nearest}`
  const rootList = roots.join(', ')
  return `Use a path inside ${rootList}, such as "${nearest}" (${inside}); ${resolved} would need a folder holding it in workspace.roots.`
}
