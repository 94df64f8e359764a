import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { parseSync } from 'rolldown/utils'
import { describe, expect, it } from 'vitest'

/**
 * The folders of `src`, lowest layer first. A module may import (a type-only import counts too)
 * only from its own folder or a folder listed before its own; the entry files (`index.ts`,
 * `schemas.ts`, `node.ts`) may import from any folder and no folder imports them.
 */
const LAYERS = [
  'schema',
  'types',
  'util',
  'telemetry',
  'issues',
  'errors',
  'policy',
  'plan',
  'checks',
  'command',
  'sign',
  'audit',
  'taint',
  'extract',
  'flow',
  'compile',
  'render',
  'guard',
  'durable',
  'adapter',
  'execute',
  'tools',
  'testing',
]

const SRC = import.meta.dirname
const ARCHITECTURE = join(SRC, '..', 'docs', 'architecture.md')

/** One import of a source module: the importing file and the file it names, relative to `src`. */
interface ModuleImport {
  readonly file: string
  readonly specifier: string
  readonly target: string
}

const isSupport = (name: string) =>
  /\.test(-d)?\.ts$/.test(name) || name === '__fixtures__' || name === 'test-utils'

/** The source modules of `src` (tests and their fixtures left out), relative to `src`. */
function sourceFiles(folder = ''): string[] {
  return readdirSync(join(SRC, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`
    if (isSupport(entry.name)) return []
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Every module specifier in a file: imports, re-exports, `import()` and `import('…')` types. */
function specifiersOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8')
  const { module, program, errors } = parseSync(file, text)
  if (errors.length > 0) throw new Error(`${file}: ${errors[0]?.message}`)
  const found = module.staticImports.map((entry) => entry.moduleRequest.value)
  for (const entry of module.staticExports.flatMap((statement) => statement.entries)) {
    if (entry.moduleRequest !== null) found.push(entry.moduleRequest.value)
  }
  for (const { moduleRequest } of module.dynamicImports) {
    const literal = /^(['"`])([^'"`$]*)\1$/.exec(text.slice(moduleRequest.start, moduleRequest.end))
    if (literal?.[2] !== undefined) found.push(literal[2])
  }
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return
    const source = (node as { type?: string; source?: { value?: unknown } }).source
    if ((node as { type?: string }).type === 'TSImportType' && typeof source?.value === 'string') {
      found.push(source.value)
    }
    for (const value of Object.values(node)) visit(value)
  }
  visit(program)
  return [...new Set(found)]
}

const TYPE_DECLARATIONS = new Set(['TSInterfaceDeclaration', 'TSTypeAliasDeclaration'])

/** Statements of a `types/` module that are not types, and packages a `schema/` module imports. */
function contentProblems(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8')
  const { program, module } = parseSync(file, text)
  if (file.startsWith('schema/')) {
    return module.staticImports
      .map((entry) => entry.moduleRequest.value)
      .filter((specifier) => !specifier.startsWith('./') && specifier !== 'zod')
      .map((specifier) => `${file} imports '${specifier}': schema/ imports only zod`)
  }
  if (!file.startsWith('types/')) return []
  return program.body
    .filter((statement) => {
      if (statement.type === 'ImportDeclaration') return statement.importKind !== 'type'
      if (statement.type === 'ExportNamedDeclaration' && statement.exportKind === 'type') {
        return false
      }
      const declared =
        statement.type === 'ExportNamedDeclaration' ? statement.declaration : statement
      return declared === null || !TYPE_DECLARATIONS.has(declared.type)
    })
    .map(
      (statement) =>
        `${file}: '${text.slice(statement.start, statement.end).split('\n')[0]}' is not a type`,
    )
}

/** The imports between source modules of `src` (packages such as `zod` left out). */
function moduleImports(): ModuleImport[] {
  return sourceFiles().flatMap((file) =>
    specifiersOf(file)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => ({
        file,
        specifier,
        target: relative(SRC, join(SRC, dirname(file), specifier)).replace(/\.js$/, '.ts'),
      })),
  )
}

const folderOf = (path: string) => (path.includes('/') ? path.slice(0, path.indexOf('/')) : '')

/** The imports that break the layer order, one readable line each. */
function layerViolations(imports: readonly ModuleImport[], layers: readonly string[]): string[] {
  const problems: string[] = []
  for (const { file, specifier, target } of imports) {
    const from = folderOf(file)
    const to = folderOf(target)
    if (from === '' || from === to) continue
    const rank = layers.indexOf(from)
    const targetRank = layers.indexOf(to)
    if (to === '') problems.push(`${file} imports '${specifier}': a folder imports no entry file`)
    else if (rank < 0) problems.push(`${file}: folder '${from}' is not in the layer order`)
    else if (targetRank < 0) problems.push(`${file} imports '${specifier}': '${to}' has no layer`)
    else if (targetRank > rank) {
      problems.push(`${file} imports '${specifier}': '${to}' is above '${from}' in the layer order`)
    }
  }
  return problems
}

/** Each import cycle between modules, as the files around it (empty when there is none). */
function moduleCycles(imports: readonly ModuleImport[]): string[][] {
  const next = new Map<string, string[]>()
  for (const { file, target } of imports) next.set(file, [...(next.get(file) ?? []), target])
  const state = new Map<string, 'open' | 'done'>()
  const cycles: string[][] = []
  const stack: string[] = []
  const visit = (file: string): void => {
    state.set(file, 'open')
    stack.push(file)
    for (const target of next.get(file) ?? []) {
      if (state.get(target) === 'open') cycles.push([...stack.slice(stack.indexOf(target)), target])
      else if (state.get(target) === undefined) visit(target)
    }
    stack.pop()
    state.set(file, 'done')
  }
  for (const file of [...next.keys()].sort()) if (state.get(file) === undefined) visit(file)
  return cycles
}

/** The folder graph with every edge that a longer path implies left out, as Mermaid lines. */
function folderDiagram(imports: readonly ModuleImport[]): string[] {
  const edges = new Map<string, Set<string>>()
  for (const { file, target } of imports) {
    const from = folderOf(file)
    const to = folderOf(target)
    if (from === '' || to === '' || from === to) continue
    edges.set(from, (edges.get(from) ?? new Set()).add(to))
  }
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
    [...(edges.get(from) ?? [])].some(
      (next) => next === to || (!seen.has(next) && seen.add(next) && reaches(next, to, seen)),
    )
  const lines: string[] = []
  for (const from of LAYERS.toReversed()) {
    const targets = [...(edges.get(from) ?? [])]
    for (const to of targets.sort((a, b) => LAYERS.indexOf(b) - LAYERS.indexOf(a))) {
      const implied = targets.some((other) => other !== to && reaches(other, to))
      if (!implied) lines.push(`  ${from} --> ${to}`)
    }
  }
  return lines
}

describe('src folder layers', () => {
  const imports = moduleImports()

  it('should place every folder of src in the layer order', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
    expect(folders.toSorted()).toEqual(LAYERS.toSorted())
  })

  it('should import only from the same or a lower layer', () => {
    expect(imports.length).toBeGreaterThan(300)
    expect(layerViolations(imports, LAYERS)).toEqual([])
  })

  it('should report an import against the order and one of an entry file', () => {
    const upward = { file: 'util/a.ts', specifier: '../guard/b.js', target: 'guard/b.ts' }
    const entry = { file: 'guard/b.ts', specifier: '../index.js', target: 'index.ts' }
    expect(layerViolations([upward, entry], LAYERS)).toEqual([
      "util/a.ts imports '../guard/b.js': 'guard' is above 'util' in the layer order",
      "guard/b.ts imports '../index.js': a folder imports no entry file",
    ])
  })

  it('should keep types/ free of runtime code and schema/ free of packages but zod', () => {
    expect(sourceFiles().flatMap(contentProblems)).toEqual([])
  })

  it('should have no import cycle between modules', () => {
    expect(moduleCycles(imports)).toEqual([])
    const a = { file: 'plan/a.ts', specifier: './b.js', target: 'plan/b.ts' }
    const b = { file: 'plan/b.ts', specifier: './a.js', target: 'plan/a.ts' }
    expect(moduleCycles([a, b])).toEqual([['plan/a.ts', 'plan/b.ts', 'plan/a.ts']])
  })

  it('should draw the folder imports in docs/architecture.md as they are', () => {
    const readme = readFileSync(ARCHITECTURE, 'utf8')
    const block = /```mermaid\n(flowchart TB\n {2}%% folder imports\n[\s\S]*?)```/.exec(readme)?.[1]
    const drawn = block?.split('\n').filter((line) => line.includes('-->'))
    const expected = folderDiagram(imports)
    expect(drawn, `docs/architecture.md, folder diagram:\n${expected.join('\n')}`).toEqual(expected)
  })
})
