import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { parseSync } from 'rolldown/utils'

/** The root of the monorepo. */
export const REPOSITORY_ROOT = join(import.meta.dirname, '..', '..', '..')

/** One package or app of the workspace, as its manifest declares it. */
export interface Workspace {
  /** The package name, such as `@plan/core`. */
  readonly name: string
  /** The folder, relative to the repository root, such as `packages/core`. */
  readonly folder: string
  readonly private: boolean
  /** The `@plan` packages named in `dependencies` and `peerDependencies`. */
  readonly runtimeDependencies: readonly string[]
  /** The `@plan` packages named only in `devDependencies`. */
  readonly developmentDependencies: readonly string[]
  /** The subpaths of the `exports` map, such as `.` and `./node`. */
  readonly exportedSubpaths: readonly string[]
}

/** One module specifier in a source file of a workspace. */
export interface SourceImport {
  /** The file, relative to the workspace folder. */
  readonly file: string
  readonly specifier: string
}

const WORKSPACE_GROUPS = ['packages', 'apps']
const SINGLE_WORKSPACES = ['bench']
const SCANNED_FOLDERS = ['src', 'scripts']
const SOURCE_EXTENSIONS = /\.(ts|mts|mjs|js)$/

const planNames = (field: unknown): string[] =>
  Object.keys((field ?? {}) as Record<string, string>).filter((name) => name.startsWith('@plan/'))

function readWorkspace(folder: string): Workspace {
  const manifest = JSON.parse(readFileSync(join(REPOSITORY_ROOT, folder, 'package.json'), 'utf8'))
  const runtime = [...planNames(manifest.dependencies), ...planNames(manifest.peerDependencies)]
  return {
    name: manifest.name,
    folder,
    private: manifest.private === true,
    runtimeDependencies: [...new Set(runtime)].sort(),
    developmentDependencies: planNames(manifest.devDependencies)
      .filter((name) => !runtime.includes(name))
      .sort(),
    exportedSubpaths: Object.keys(manifest.exports ?? {}),
  }
}

/** Every package and app of the workspace, sorted by name. */
export function listWorkspaces(): Workspace[] {
  const folders = WORKSPACE_GROUPS.flatMap((group) =>
    readdirSync(join(REPOSITORY_ROOT, group)).map((name) => `${group}/${name}`),
  ).concat(SINGLE_WORKSPACES)
  return folders
    .filter((folder) => existsSync(join(REPOSITORY_ROOT, folder, 'package.json')))
    .map(readWorkspace)
    .sort((a, b) => a.name.localeCompare(b.name))
}

function filesUnder(root: string, folder: string): string[] {
  const absolute = join(root, folder)
  if (!existsSync(absolute)) return []
  return readdirSync(absolute, { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(root, path)
    return SOURCE_EXTENSIONS.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** The source files of a workspace (`src` and `scripts`), relative to its folder. */
export function sourceFilesOf(workspace: Workspace): string[] {
  const root = join(REPOSITORY_ROOT, workspace.folder)
  return SCANNED_FOLDERS.flatMap((folder) => filesUnder(root, folder))
}

function typeImportSources(node: unknown, found: string[]): void {
  if (typeof node !== 'object' || node === null) return
  const { type, source } = node as { type?: string; source?: { value?: unknown } }
  if (type === 'TSImportType' && typeof source?.value === 'string') found.push(source.value)
  for (const value of Object.values(node)) typeImportSources(value, found)
}

/** Every module specifier in a file: imports, re-exports, literal `import()` and import types. */
export function specifiersIn(path: string): string[] {
  const text = readFileSync(path, 'utf8')
  const { module, program, errors } = parseSync(path, text)
  if (errors.length > 0) throw new Error(`${path}: ${errors[0]?.message}`)
  const found = module.staticImports.map((entry) => entry.moduleRequest.value)
  for (const entry of module.staticExports.flatMap((statement) => statement.entries)) {
    if (entry.moduleRequest !== null) found.push(entry.moduleRequest.value)
  }
  for (const { moduleRequest } of module.dynamicImports) {
    const literal = /^(['"`])([^'"`$]*)\1$/.exec(text.slice(moduleRequest.start, moduleRequest.end))
    if (literal?.[2] !== undefined) found.push(literal[2])
  }
  typeImportSources(program, found)
  return [...new Set(found)]
}

/** Every import of every source file of a workspace. */
export function importsOf(workspace: Workspace): SourceImport[] {
  const root = join(REPOSITORY_ROOT, workspace.folder)
  return sourceFilesOf(workspace).flatMap((file) =>
    specifiersIn(join(root, file)).map((specifier) => ({ file, specifier })),
  )
}

/** The package a bare specifier names (`@scope/name` or `name`), and the subpath after it. */
export function splitSpecifier(specifier: string): { packageName: string; subpath: string } {
  const parts = specifier.split('/')
  const length = specifier.startsWith('@') ? 2 : 1
  const rest = parts.slice(length).join('/')
  return { packageName: parts.slice(0, length).join('/'), subpath: rest === '' ? '.' : `./${rest}` }
}

/** The file a relative specifier points at, relative to the workspace folder. */
export function resolveRelative(file: string, specifier: string): string {
  return relative('.', join(dirname(file), specifier))
}

/** Each cycle of a directed graph, as the nodes around it (empty when there is none). */
export function findCycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>()
  const cycles: string[][] = []
  const stack: string[] = []
  const visit = (node: string): void => {
    state.set(node, 'open')
    stack.push(node)
    for (const target of edges.get(node) ?? []) {
      if (state.get(target) === 'open') cycles.push([...stack.slice(stack.indexOf(target)), target])
      else if (state.get(target) === undefined) visit(target)
    }
    stack.pop()
    state.set(node, 'done')
  }
  for (const node of [...edges.keys()].sort()) if (state.get(node) === undefined) visit(node)
  return cycles
}

/** Whether `to` is reachable from `from` along one or more edges. */
export function reaches(
  edges: ReadonlyMap<string, readonly string[]>,
  from: string,
  to: string,
): boolean {
  const seen = new Set<string>()
  const pending = [...(edges.get(from) ?? [])]
  while (pending.length > 0) {
    const next = pending.pop() as string
    if (next === to) return true
    if (seen.has(next)) continue
    seen.add(next)
    pending.push(...(edges.get(next) ?? []))
  }
  return false
}

/** The edges of a graph that no longer path implies, as sorted `from --> to` lines. */
export function reducedEdges(edges: ReadonlyMap<string, readonly string[]>): string[] {
  const lines: string[] = []
  for (const [from, targets] of edges) {
    for (const to of targets) {
      const implied = targets.some((other) => other !== to && reaches(edges, other, to))
      if (!implied) lines.push(`${from} --> ${to}`)
    }
  }
  return [...new Set(lines)].sort()
}

/** The arrow lines (`-->`, `-.->`) of the Mermaid block of a Markdown file that starts with `%% title`. */
export function drawnEdges(markdownPath: string, title: string): string[] | undefined {
  const text = readFileSync(markdownPath, 'utf8')
  const blocks = [...text.matchAll(/```mermaid\nflowchart [A-Z]{2}\n([\s\S]*?)```/g)]
  const block = blocks.find((match) => match[1]?.startsWith(`  %% ${title}\n`))?.[1]
  if (block === undefined) return undefined
  return block
    .split('\n')
    .filter((line) => line.includes('-->') || line.includes('-.->'))
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .sort()
}

/** A graph from `from --> to` lines. */
export function graphOf(lines: readonly string[]): Map<string, string[]> {
  const edges = new Map<string, string[]>()
  for (const line of lines) {
    const [from, to] = line.split(' --> ') as [string, string]
    edges.set(from, [...(edges.get(from) ?? []), to])
    if (!edges.has(to)) edges.set(to, [])
  }
  return edges
}
