import { type PlanCompiler, PlanError, type PlanIssue } from '@plan/core'
import { resourceRefusalText } from './denial-result.js'
import { resourceTarget, shownUri } from './resource-target.js'

/**
 * How `resources/read` and `resources/subscribe` are treated: as the policy's `mcp.resources`
 * says (`'policy'`), held to the workspace (`'workspace'`), or forwarded unchecked (`'pass'`).
 */
export type McpResourcesMode = 'pass' | 'workspace' | 'policy'

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
  if (mode !== 'pass' && mode !== 'workspace' && mode !== 'policy')
    throw fail(`resources must be 'policy', 'pass' or 'workspace', not ${JSON.stringify(mode)}.`)
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

/** What a resource URI names after the check: the path (the real one, once allowed) and any issue. */
export interface ResourceInspection {
  readonly path?: string
  readonly issue?: PlanIssue
}

/** What may be read: `file:` URIs (path-checked) or not, and the other schemes passed. */
interface ResourceRules {
  readonly files: boolean
  readonly schemes: ReadonlySet<string>
  /** The policy's `mcp.resources` decides (its refusals say so), not the `resources` option. */
  readonly fromPolicy: boolean
}

function schemeIssue(uri: unknown, scheme: string, rules: ResourceRules): PlanIssue {
  const shown = shownUri(uri as string)
  if (rules.fromPolicy)
    return {
      code: 'resource_not_allowed',
      message: `The resource URI ${shown} has the scheme ${scheme}:, which the policy's mcp.resources does not list.`,
      hint: 'Read only resources whose scheme the policy lists; a human adds a scheme to mcp.resources.',
      path: ['uri'],
    }
  return {
    code: 'path_not_allowed',
    message: `The resource URI ${shown} is not a file: URI, and ${scheme}: is not among the schemes allowed.`,
    hint: 'Read files of the workspace as file:///<absolute path>.',
    path: ['uri'],
  }
}

/** The issue of a resource URI, located at the request's `uri`, and the path it names. */
async function inspectUri(
  uri: unknown,
  compiler: PlanCompiler,
  onDisk: boolean,
  rules: ResourceRules,
): Promise<ResourceInspection> {
  const target = resourceTarget(uri)
  if (target.kind === 'invalid')
    return {
      issue: { code: 'path_invalid', message: target.message, hint: target.hint, path: ['uri'] },
    }
  if (target.kind === 'scheme')
    return rules.schemes.has(target.scheme) ? {} : { issue: schemeIssue(uri, target.scheme, rules) }
  if (!rules.files) return { issue: schemeIssue(uri, 'file', rules) }
  const checked = onDisk
    ? await compiler.checkPathOnDisk(target.path, 'read')
    : compiler.checkPath(target.path, 'read')
  if (!checked.allowed) return { path: target.path, issue: { ...checked.issue, path: ['uri'] } }
  return { path: onDisk ? checked.resolved : target.path }
}

/** The rules of `mode`: none for `'pass'`; the policy's `mcp.resources` for `'policy'`. */
function resourceRules(
  compiler: PlanCompiler,
  mode: McpResourcesMode,
  schemes: ReadonlySet<string>,
): ResourceRules | undefined {
  if (mode === 'pass') return undefined
  if (mode === 'workspace') return { files: true, schemes, fromPolicy: false }
  const listed = compiler.policy.policy.mcp?.resources ?? []
  return {
    files: listed.includes('file'),
    schemes: new Set(listed.filter((scheme) => scheme !== 'file')),
    fromPolicy: true,
  }
}

/** The check of resource requests in `'workspace'` and `'policy'` mode, in two parts. */
export interface ResourceInspector {
  /** What the URI names and, if it may not be read, why. */
  inspect(uri: unknown): Promise<ResourceInspection>
  /** The refusal of `uri` for `issues`; `allowed` false leaves out what may be read instead. */
  refusal(uri: unknown, issues: readonly PlanIssue[], allowed?: boolean): ResourceRefusal
}

/**
 * The check of resource requests: none in `'pass'` mode (undefined); in `'workspace'` mode a
 * `file:` URI must name a path that tools may read — inside the workspace, outside `deny`, and
 * (with `onDisk`) with symbolic links resolved — and any other scheme must be in `schemes`; in
 * `'policy'` mode the policy's `mcp.resources` lists the schemes, `file` URIs checked as in
 * `'workspace'` mode, and nothing is read when it lists none.
 */
export function createResourceInspector(
  compiler: PlanCompiler,
  options: {
    readonly mode: McpResourcesMode
    readonly schemes: readonly string[] | undefined
    readonly onDisk: boolean
  },
): ResourceInspector | undefined {
  const rules = resourceRules(compiler, options.mode, schemesOf(options.mode, options.schemes))
  if (rules === undefined) return undefined
  const roots = compiler.policy.scope.roots.join(', ')
  const kinds = [
    ...(rules.files ? [`file: URIs of paths inside ${roots}`] : []),
    ...[...rules.schemes].map((scheme) => `${scheme}: URIs`),
  ]
  const allowedText =
    kinds.length === 0
      ? 'The policy allows no resources (mcp.resources lists none).'
      : `Allowed: ${kinds.join('; ')}.`
  return {
    inspect: (uri) => inspectUri(uri, compiler, options.onDisk, rules),
    refusal(uri, issues, allowed = true) {
      const shown = typeof uri === 'string' ? uri : String(uri)
      return { issues, message: resourceRefusalText(shown, issues, allowed ? allowedText : '') }
    },
  }
}

/** The inspector as one function: the refusal, or undefined when the URI may go. */
export function resourceCheckOf(
  inspector: ResourceInspector | undefined,
): ResourceCheck | undefined {
  if (inspector === undefined) return undefined
  return async (uri) => {
    const { issue } = await inspector.inspect(uri)
    return issue === undefined ? undefined : inspector.refusal(uri, [issue])
  }
}

/** {@link createResourceInspector} as one function (see {@link resourceCheckOf}). */
export function createResourceCheck(
  compiler: PlanCompiler,
  options: Parameters<typeof createResourceInspector>[1],
): ResourceCheck | undefined {
  return resourceCheckOf(createResourceInspector(compiler, options))
}
