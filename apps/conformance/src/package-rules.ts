import {
  findCycles,
  resolveRelative,
  type SourceImport,
  splitSpecifier,
  type Workspace,
} from './workspace-imports.js'

/** The node a package has in the package diagram: its name without the `@plan/` scope. */
export const nodeName = (name: string) => name.replace(/^@plan\//, '')

/**
 * Whether a file only supports tests (it may use the package's devDependencies): what the
 * `files` of a manifest leave out. A `test-*.ts` module of a `/test` entry ships.
 */
export const isTestSupport = (file: string) =>
  /\.test(-d)?\.ts$/.test(file) || /(^|\/)(test-utils|__fixtures__)\//.test(file)

/**
 * The `@plan` dependency edges of every manifest, as sorted Mermaid lines: `from --> to` for a
 * dependency, `from -.-> to` for a devDependency.
 */
export function manifestEdges(workspaces: readonly Workspace[]): string[] {
  return workspaces
    .flatMap((workspace) => [
      ...workspace.runtimeDependencies.map(
        (target) => `${nodeName(workspace.name)} --> ${nodeName(target)}`,
      ),
      ...workspace.developmentDependencies.map(
        (target) => `${nodeName(workspace.name)} -.-> ${nodeName(target)}`,
      ),
    ])
    .sort()
}

/** The packages that stand on no `@plan` package, and the only ones `@plan/core` stands on. */
const BASE_PACKAGES = ['@plan/json', '@plan/shell']

/**
 * The rules the declared graph must keep whatever the diagram says: the base packages
 * (`@plan/json`, `@plan/shell`) stand on no `@plan` package, `@plan/core` only on them, no
 * adapter on another adapter, and no published package on a private one.
 */
export function graphRuleProblems(workspaces: readonly Workspace[]): string[] {
  const problems: string[] = []
  const byName = new Map(workspaces.map((workspace) => [workspace.name, workspace]))
  const allOf = (workspace: Workspace) => [
    ...workspace.runtimeDependencies,
    ...workspace.developmentDependencies,
  ]
  for (const name of BASE_PACKAGES) {
    const base = byName.get(name)
    if (base !== undefined && allOf(base).length > 0) {
      problems.push(`${name} depends on ${allOf(base).join(', ')}: it stands on no @plan package`)
    }
  }
  const core = byName.get('@plan/core')
  const coreExtra =
    core === undefined ? [] : allOf(core).filter((name) => !BASE_PACKAGES.includes(name))
  if (coreExtra.length > 0) {
    problems.push(
      `@plan/core depends on ${coreExtra.join(', ')}: it stands on ${BASE_PACKAGES.join(' and ')} only`,
    )
  }
  const adapters = ['@plan/ai-sdk', '@plan/langchain', '@plan/mcp']
  for (const workspace of workspaces) {
    for (const target of allOf(workspace)) {
      if (adapters.includes(workspace.name) && adapters.includes(target)) {
        problems.push(`${workspace.name} depends on ${target}: an adapter stands on no adapter`)
      }
      if (!workspace.private && byName.get(target)?.private !== false) {
        problems.push(`${workspace.name} is published and depends on the private ${target}`)
      }
    }
  }
  const edges = new Map(workspaces.map((workspace) => [workspace.name, allOf(workspace)]))
  for (const cycle of findCycles(edges)) problems.push(`dependency cycle: ${cycle.join(' -> ')}`)
  return problems
}

function bareImportProblem(
  workspace: Workspace,
  { file, specifier }: SourceImport,
  byName: ReadonlyMap<string, Workspace>,
): string | undefined {
  const { packageName, subpath } = splitSpecifier(specifier)
  const where = `${workspace.folder}/${file} imports '${specifier}'`
  const target = byName.get(packageName)
  if (target === undefined) return `${where}: no workspace package has that name`
  if (packageName === workspace.name) {
    if (isTestSupport(file) && target.exportedSubpaths.includes(subpath)) return undefined
    return `${where}: a shipped module reaches its own package by relative path`
  }
  const runtime = workspace.runtimeDependencies.includes(packageName)
  const development = workspace.developmentDependencies.includes(packageName)
  if (!runtime && !development) return `${where}: ${packageName} is not in its package.json`
  if (!runtime && !workspace.private && !isTestSupport(file)) {
    return `${where}: ${packageName} is only a devDependency and this file ships`
  }
  if (!target.exportedSubpaths.includes(subpath)) {
    return `${where}: '${subpath}' is not in the exports of ${packageName}`
  }
  if (specifier === '@plan/core/internal' && !workspace.private) {
    return `${where}: a published package uses @plan/core/adapter, never /internal`
  }
  return undefined
}

/**
 * The imports of one workspace that break the package rules: an `@plan` package its manifest
 * does not name, a path its target does not export (such as `src/` or `dist/`), `/internal` from
 * a published package, or a relative path out of its own folder.
 */
export function importProblems(
  workspace: Workspace,
  imports: readonly SourceImport[],
  workspaces: readonly Workspace[],
): string[] {
  const byName = new Map(workspaces.map((each) => [each.name, each]))
  const problems: string[] = []
  for (const entry of imports) {
    if (entry.specifier.startsWith('.')) {
      if (resolveRelative(entry.file, entry.specifier).startsWith('..')) {
        problems.push(
          `${workspace.folder}/${entry.file} imports '${entry.specifier}': a path out of its package`,
        )
      }
    } else if (entry.specifier.startsWith('@plan/')) {
      const problem = bareImportProblem(workspace, entry, byName)
      if (problem !== undefined) problems.push(problem)
    }
  }
  return problems
}

/** The graph of which package imports which, from the imports of every workspace. */
export function packageImportGraph(
  importsByWorkspace: ReadonlyMap<Workspace, readonly SourceImport[]>,
): Map<string, string[]> {
  const edges = new Map<string, string[]>()
  for (const [workspace, imports] of importsByWorkspace) {
    const targets = imports
      .filter((entry) => entry.specifier.startsWith('@plan/'))
      .map((entry) => splitSpecifier(entry.specifier).packageName)
      .filter((name) => name !== workspace.name)
    edges.set(workspace.name, [...new Set(targets)].sort())
  }
  return edges
}
