import {
  checkPathLexical,
  createResolver,
  deniedHint,
  isWithin,
  loadResolvingFileSystem,
  type PathAccess,
  type PathCheckResult,
  type PathDenial,
  type PathScope,
  placeInList,
  type Resolve,
  readOnlyHint,
  resolvingFileSystem,
  stringAt,
} from '@plan/shell/common'

const NO_FILE_SYSTEM: Resolve = () => ({
  ok: false,
  reason: 'this runtime has no file system to check it against',
})

/** Resolves paths for one check; where the runtime has no file system, none resolves. */
async function resolverOnDisk(): Promise<Resolve> {
  // Found at once where the runtime has `process.getBuiltinModule`, as Node.js 22.3+ does.
  const fs = resolvingFileSystem() ?? (await loadResolvingFileSystem())
  return fs === undefined ? NO_FILE_SYSTEM : createResolver(fs)
}

function denial(code: PathDenial['code'], message: string, hint: string): PathCheckResult {
  return { allowed: false, issue: { code, message, hint } }
}

/**
 * The first of `entries` as written, else of their real paths on disk, that holds `real`
 * (unresolvable entries stay as written); every entry is resolved either way.
 */
function entryHolding(
  resolve: Resolve,
  entries: readonly string[],
  real: string,
): string | undefined {
  let found = entries.find((entry) => isWithin(entry, real))
  for (const entry of entries) {
    const resolved = resolve(entry)
    if (found === undefined && resolved.ok && isWithin(resolved.real, real)) found = resolved.real
  }
  return found
}

/**
 * Checks a path argument lexically, then on disk: symbolic links are resolved (for a file not yet
 * existing, the nearest existing ancestor's real path; a dangling link by its target), and the real
 * path must lie inside a workspace root (itself resolved, so a root may be a link) and outside the
 * `deny` (and, for writes, `readOnly`) entries. Loops, permission errors and any other file system
 * error deny. On success `resolved` is the real path; open that, not the argument, so a relative
 * path cannot be read against another working folder.
 *
 * @example
 * ```ts
 * const result = await checkPathOnDisk('notes/today.md', compiler.policy.scope, 'write')
 * if (result.allowed) await writeFile(result.resolved, text)
 * ```
 */
export async function checkPathOnDisk(
  value: unknown,
  scope: PathScope,
  access: PathAccess = 'read',
): Promise<PathCheckResult> {
  const lexical = checkPathLexical(value, scope, access)
  if (!lexical.allowed) return lexical
  const text = value as string
  const first = stringAt(scope.roots, 0)
  // Joined without normalising: `..` must apply after links are followed, as the kernel does.
  const joined = text.startsWith('/') ? text : `${first}/${text}`
  const resolve = await resolverOnDisk()
  const resolution = resolve(joined, true)
  if (!resolution.ok) {
    return denial(
      'path_not_allowed',
      `The path ${JSON.stringify(text)} cannot be resolved safely on disk (${resolution.reason}).`,
      'Use a plain path to an existing folder inside the workspace, without link loops.',
    )
  }
  const real = resolution.real
  const roots: string[] = []
  for (const root of scope.roots) {
    const resolvedRoot = resolve(root, true)
    if (resolvedRoot.ok) roots.push(resolvedRoot.real)
  }
  if (!roots.some((root) => isWithin(root, real))) {
    const rootList = scope.roots.join(', ')
    return denial(
      'path_outside_workspace',
      `The path ${JSON.stringify(text)} leads to ${real} on disk (through a symbolic link), outside the workspace (${rootList}).`,
      `Use a path whose real location is inside ${rootList}; links may not lead out.`,
    )
  }
  const denied = entryHolding(resolve, scope.deny, real)
  if (denied !== undefined) {
    return denial(
      'path_not_allowed',
      `The path ${JSON.stringify(text)} leads to ${placeInList(real, denied, 'workspace.deny')}: it may be neither read nor written.`,
      deniedHint(denied),
    )
  }
  if (access === 'write') {
    const readOnly = entryHolding(resolve, scope.readOnly, real)
    if (readOnly !== undefined) {
      return denial(
        'path_not_allowed',
        `The path ${JSON.stringify(text)} leads to ${placeInList(real, readOnly, 'workspace.readOnly')}: it may be read, not written.`,
        readOnlyHint(readOnly),
      )
    }
  }
  return { allowed: true, resolved: real }
}
