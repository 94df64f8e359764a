import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { folderGraph, layerProblems, moduleImports, sourceFolders } from './folder-layers.js'
import {
  graphRuleProblems,
  importProblems,
  manifestEdges,
  nodeName,
  packageImportGraph,
} from './package-rules.js'
import {
  drawnEdges,
  findCycles,
  graphOf,
  importsOf,
  listWorkspaces,
  REPOSITORY_ROOT,
  reducedEdges,
  type Workspace,
} from './workspace-imports.js'

const ARCHITECTURE = join(REPOSITORY_ROOT, 'docs', 'architecture.md')
const workspaces = listWorkspaces()
const importsByWorkspace = new Map(workspaces.map((workspace) => [workspace, importsOf(workspace)]))
const named = (name: string) => workspaces.find((workspace) => workspace.name === name) as Workspace

const fake = (name: string, overrides: Partial<Workspace> = {}): Workspace => ({
  name,
  folder: `packages/${nodeName(name)}`,
  private: false,
  runtimeDependencies: [],
  developmentDependencies: [],
  exportedSubpaths: ['.'],
  ...overrides,
})

describe('the packages of the workspace', () => {
  it('should draw every @plan dependency of every manifest in docs/architecture.md', () => {
    expect(workspaces.map((workspace) => workspace.name)).toContain('@plan/conformance')
    const expected = manifestEdges(workspaces)
    const drawn = drawnEdges(ARCHITECTURE, 'package dependencies')
    expect(drawn, `docs/architecture.md, package diagram:\n${expected.join('\n')}`).toEqual(
      expected,
    )
  })

  it('should keep the declared dependencies a DAG on json and shell, then core, with no adapter on another', () => {
    expect(graphRuleProblems(workspaces)).toEqual([])
    expect(named('@plan/json').runtimeDependencies).toEqual([])
    expect(named('@plan/shell').runtimeDependencies).toEqual([])
    expect(named('@plan/core').runtimeDependencies).toEqual(['@plan/json', '@plan/shell'])
  })

  it('should report a base package on another, a core beyond them, an adapter on an adapter, and a cycle', () => {
    const broken = [
      fake('@plan/json', { runtimeDependencies: ['@plan/shell'] }),
      fake('@plan/shell', { runtimeDependencies: ['@plan/core'] }),
      fake('@plan/core', { runtimeDependencies: ['@plan/json', '@plan/shell', '@plan/sandbox'] }),
      fake('@plan/sandbox', { runtimeDependencies: ['@plan/core'] }),
      fake('@plan/mcp', { runtimeDependencies: ['@plan/ai-sdk', '@plan/demo'] }),
      fake('@plan/ai-sdk'),
      fake('@plan/demo', { private: true }),
    ]
    expect(graphRuleProblems(broken)).toEqual([
      '@plan/json depends on @plan/shell: it stands on no @plan package',
      '@plan/shell depends on @plan/core: it stands on no @plan package',
      '@plan/core depends on @plan/sandbox: it stands on @plan/json and @plan/shell only',
      '@plan/mcp depends on @plan/ai-sdk: an adapter stands on no adapter',
      '@plan/mcp is published and depends on the private @plan/demo',
      'dependency cycle: @plan/core -> @plan/json -> @plan/shell -> @plan/core',
      'dependency cycle: @plan/core -> @plan/sandbox -> @plan/core',
    ])
  })

  it('should import only the @plan packages a manifest names, through their exports', () => {
    const total = [...importsByWorkspace.values()].reduce((sum, imports) => sum + imports.length, 0)
    expect(total).toBeGreaterThan(2000)
    const problems = [...importsByWorkspace].flatMap(([workspace, imports]) =>
      importProblems(workspace, imports, workspaces),
    )
    expect(problems).toEqual([])
  })

  it('should report an undeclared import, a deep path, /internal, and a path out of the package', () => {
    const core = fake('@plan/core', {
      exportedSubpaths: ['.', './adapter', './internal'],
      runtimeDependencies: ['@plan/shell'],
    })
    const langchain = fake('@plan/langchain', {
      runtimeDependencies: ['@plan/core'],
      developmentDependencies: ['@plan/sandbox'],
    })
    const all = [core, langchain, fake('@plan/shell'), fake('@plan/sandbox')]
    const imports = [
      { file: 'src/a.ts', specifier: '@plan/shell' },
      { file: 'src/a.ts', specifier: '@plan/core/src/guard/create-plan-guard.js' },
      { file: 'src/a.ts', specifier: '@plan/core/dist/index.js' },
      { file: 'src/a.ts', specifier: '@plan/core/internal' },
      { file: 'src/a.ts', specifier: '@plan/sandbox' },
      { file: 'src/a.test.ts', specifier: '@plan/sandbox' },
      { file: 'src/a.ts', specifier: '../../core/src/index.js' },
      { file: 'src/a.ts', specifier: '@plan/core/adapter' },
    ]
    expect(importProblems(langchain, imports, all)).toEqual([
      "packages/langchain/src/a.ts imports '@plan/shell': @plan/shell is not in its package.json",
      "packages/langchain/src/a.ts imports '@plan/core/src/guard/create-plan-guard.js': './src/guard/create-plan-guard.js' is not in the exports of @plan/core",
      "packages/langchain/src/a.ts imports '@plan/core/dist/index.js': './dist/index.js' is not in the exports of @plan/core",
      "packages/langchain/src/a.ts imports '@plan/core/internal': a published package uses @plan/core/adapter, never /internal",
      "packages/langchain/src/a.ts imports '@plan/sandbox': @plan/sandbox is only a devDependency and this file ships",
      "packages/langchain/src/a.ts imports '../../core/src/index.js': a path out of its package",
    ])
  })

  it('should have no import cycle between packages', () => {
    expect(findCycles(packageImportGraph(importsByWorkspace))).toEqual([])
    const a = fake('@plan/a')
    const b = fake('@plan/b')
    const cyclic = new Map([
      [a, [{ file: 'src/x.ts', specifier: '@plan/b' }]],
      [b, [{ file: 'src/y.ts', specifier: '@plan/a/node' }]],
    ])
    expect(findCycles(packageImportGraph(cyclic))).toEqual([['@plan/a', '@plan/b', '@plan/a']])
  })
})

describe.each(['@plan/shell', '@plan/core'])('the folder layers of %s', (name) => {
  const workspace = named(name)
  const imports = moduleImports(importsByWorkspace.get(workspace) ?? [])
  const doc = join(REPOSITORY_ROOT, workspace.folder, 'docs', 'architecture.md')

  it('should draw the folder imports in docs/architecture.md as they are', () => {
    expect(imports.length).toBeGreaterThan(100)
    const expected = reducedEdges(folderGraph(imports))
    const drawn = drawnEdges(doc, 'folder imports')
    expect(drawn, `${workspace.folder}/docs/architecture.md:\n${expected.join('\n')}`).toEqual(
      expected,
    )
  })

  it('should place every folder in the diagram and import only along its arrows', () => {
    const drawn = graphOf(drawnEdges(doc, 'folder imports') ?? [])
    expect(sourceFolders(workspace).filter((folder) => !drawn.has(folder))).toEqual([])
    expect(layerProblems(imports, drawn)).toEqual([])
  })
})

/**
 * Cycles known in packages being reworked elsewhere, which may only shrink: an entry no longer
 * found fails the test.
 */
const KNOWN_CYCLES: Readonly<Record<string, readonly string[]>> = {
  '@plan/mcp': [
    'module cycle: guard/message-fields.ts -> tools/tool-listing.ts -> guard/message-fields.ts',
    'module cycle: tools/tool-definition.ts -> guard/message-fields.ts -> tools/tool-listing.ts -> tools/tool-definition.ts',
    'module cycle: guard/message-fields.ts -> guard/create-mcp-call-guard.ts -> tools/deny-filtered-result.ts -> guard/message-fields.ts',
    'folder cycle: guard -> tools -> guard',
  ],
}

/** Module cycles and folder cycles of one workspace's `src`. */
function cycleProblems(workspace: Workspace): string[] {
  const imports = moduleImports(importsByWorkspace.get(workspace) ?? [])
  const modules = new Map<string, string[]>()
  for (const { file, target } of imports) modules.set(file, [...(modules.get(file) ?? []), target])
  return [
    ...findCycles(modules).map((cycle) => `module cycle: ${cycle.join(' -> ')}`),
    ...findCycles(folderGraph(imports)).map((cycle) => `folder cycle: ${cycle.join(' -> ')}`),
  ]
}

describe.each(workspaces.map((workspace) => [workspace.name, workspace] as const))(
  'the modules of %s',
  (name, workspace) => {
    it('should import each other, and their folders each other, without a cycle', () => {
      expect(cycleProblems(workspace)).toEqual(KNOWN_CYCLES[name] ?? [])
    })
  },
)

describe('layerProblems', () => {
  it('should report an import against the arrows, of an entry file, and a module cycle', () => {
    const drawn = graphOf(['command --> util'])
    const upward = { file: 'util/a.ts', specifier: '../command/b.js', target: 'command/b.ts' }
    const entry = { file: 'command/b.ts', specifier: '../index.js', target: 'index.ts' }
    const back = { file: 'command/b.ts', specifier: '../util/a.js', target: 'util/a.ts' }
    expect(layerProblems([upward, entry, back], drawn)).toEqual([
      "util/a.ts imports '../command/b.js': the diagram has no path 'util' to 'command'",
      "command/b.ts imports '../index.js': a folder imports no entry file",
      'module cycle: command/b.ts -> util/a.ts -> command/b.ts',
    ])
  })
})
