import { type PlanCompiler, PlanError, type PlanIssue } from '@plan/core'
import { resourceRefusalText } from './denial-result.js'
import { resourceTarget, shownUri } from './resource-target.js'

/** How `resources/read` and `resources/subscribe` are treated. */
export type McpResourcesMode = 'pass' | 'workspace'

/** A refused resource request: its issues and the error message that names them. */
export interface ResourceRefusal {
  readonly issues: readonly PlanIssue[]
  readonly message: string
}

/** Checks the URI of one resource request; undefined when it may go to the server. */
export type ResourceCheck = (uri: unknown) => Promise<ResourceRefusal | undefined>

const SCHEME_NAME = /^[a-z][a-z0-9+.-]*$/

/** The schemes passed unchecked, lower case; a `PlanError` for a list that makes no sense. */
function schemesOf(mode: McpResourcesMode, schemes: readonly string[] | undefined): Set<string> {
  const fail = (message: string) => new PlanError(message, { code: 'invalid_configuration' })
  if (mode !== 'pass' && mode !== 'workspace')
    throw fail(`resources must be 'pass' or 'workspace', not ${JSON.stringify(mode)}.`)
  if (schemes === undefined) return new Set()
  if (mode !== 'workspace')
    throw fail("resourceSchemes applies to resources: 'workspace'; add it or drop the list.")
  const names = new Set<string>()
  for (const scheme of schemes) {
    const name = typeof scheme === 'string' ? scheme.toLowerCase() : ''
    if (!SCHEME_NAME.test(name))
      throw fail(
        `resourceSchemes holds ${JSON.stringify(scheme)}, not a URI scheme (e.g. "https").`,
      )
    if (name === 'file')
      throw fail('resourceSchemes cannot pass file: URIs unchecked; they are always checked.')
    names.add(name)
  }
  return names
}

/** The issue of a resource URI, located at the request's `uri`. */
async function uriIssue(
  uri: unknown,
  compiler: PlanCompiler,
  onDisk: boolean,
  schemes: ReadonlySet<string>,
): Promise<PlanIssue | undefined> {
  const target = resourceTarget(uri)
  if (target.kind === 'invalid')
    return { code: 'path_invalid', message: target.message, hint: target.hint, path: ['uri'] }
  if (target.kind === 'scheme') {
    if (schemes.has(target.scheme)) return undefined
    return {
      code: 'path_not_allowed',
      message: `The resource URI ${shownUri(uri as string)} is not a file: URI, and ${target.scheme}: is not among the schemes allowed.`,
      hint: 'Read files of the workspace as file:///<absolute path>.',
      path: ['uri'],
    }
  }
  const checked = onDisk
    ? await compiler.checkPathOnDisk(target.path, 'read')
    : compiler.checkPath(target.path, 'read')
  return checked.allowed ? undefined : { ...checked.issue, path: ['uri'] }
}

/**
 * The check of resource requests: none in `'pass'` mode (undefined); in `'workspace'` mode a
 * `file:` URI must name a path that tools may read — inside the workspace, outside `deny`, and
 * (with `onDisk`) with symbolic links resolved — and any other scheme must be in `schemes`.
 */
export function createResourceCheck(
  compiler: PlanCompiler,
  options: {
    readonly mode: McpResourcesMode
    readonly schemes: readonly string[] | undefined
    readonly onDisk: boolean
  },
): ResourceCheck | undefined {
  const schemes = schemesOf(options.mode, options.schemes)
  if (options.mode === 'pass') return undefined
  const roots = compiler.policy.scope.roots.join(', ')
  const others = [...schemes].map((scheme) => `${scheme}:`).join(', ')
  const allowed = `Allowed: file: URIs of paths inside ${roots}${others === '' ? '' : `; ${others} URIs`}.`
  return async (uri) => {
    const issue = await uriIssue(uri, compiler, options.onDisk, schemes)
    if (issue === undefined) return undefined
    const shown = typeof uri === 'string' ? uri : String(uri)
    return { issues: [issue], message: resourceRefusalText(shown, [issue], allowed) }
  }
}
