import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { isTestSupport } from './package-rules.js'
import {
  findCycles,
  type graphOf,
  REPOSITORY_ROOT,
  reaches,
  resolveRelative,
  type SourceImport,
  type Workspace,
} from './workspace-imports.js'

/** One import between two source modules of a package's `src`, both relative to `src`. */
export interface ModuleImport {
  readonly file: string
  readonly specifier: string
  readonly target: string
}

const folderOf = (path: string) => (path.includes('/') ? path.slice(0, path.indexOf('/')) : '')

/** The imports between the shipped modules of `src` (tests and their support left out). */
export function moduleImports(imports: readonly SourceImport[]): ModuleImport[] {
  return imports
    .filter(({ file, specifier }) => file.startsWith('src/') && specifier.startsWith('.'))
    .filter(({ file }) => !isTestSupport(file))
    .map(({ file, specifier }) => ({
      file: file.slice('src/'.length),
      specifier,
      target: resolveRelative(file, specifier).slice('src/'.length).replace(/\.js$/, '.ts'),
    }))
}

/** The folders of a workspace's `src`. */
export function sourceFolders(workspace: Workspace): string[] {
  return readdirSync(join(REPOSITORY_ROOT, workspace.folder, 'src'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== '__fixtures__')
    .map((entry) => entry.name)
    .sort()
}

/** The graph of which folder imports which (entry files at the top of `src` left out). */
export function folderGraph(imports: readonly ModuleImport[]): Map<string, string[]> {
  const edges = new Map<string, string[]>()
  for (const { file, target } of imports) {
    const from = folderOf(file)
    const to = folderOf(target)
    if (from === '' || to === '' || from === to) continue
    edges.set(from, [...new Set([...(edges.get(from) ?? []), to])].sort())
  }
  return edges
}

/**
 * The imports that break the drawn folder layers: a folder importing an entry file, a folder
 * the diagram does not hold, an import the diagram's arrows do not allow, and a module cycle.
 */
export function layerProblems(
  imports: readonly ModuleImport[],
  drawn: ReturnType<typeof graphOf>,
): string[] {
  const problems: string[] = []
  for (const { file, specifier, target } of imports) {
    const from = folderOf(file)
    const to = folderOf(target)
    if (from === '' || from === to) continue
    if (to === '') problems.push(`${file} imports '${specifier}': a folder imports no entry file`)
    else if (!drawn.has(from)) problems.push(`${file}: folder '${from}' is not in the diagram`)
    else if (!reaches(drawn, from, to)) {
      problems.push(`${file} imports '${specifier}': the diagram has no path '${from}' to '${to}'`)
    }
  }
  const modules = new Map<string, string[]>()
  for (const { file, target } of imports) modules.set(file, [...(modules.get(file) ?? []), target])
  for (const cycle of findCycles(modules)) problems.push(`module cycle: ${cycle.join(' -> ')}`)
  for (const cycle of findCycles(drawn))
    problems.push(`the diagram has a cycle: ${cycle.join(' -> ')}`)
  return problems
}
