import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parseSync } from 'rolldown/utils'
import { describe, expect, it } from 'vitest'

/** Lines a function may span, its comments and blank lines included. */
const MAX_LINES = 80

/**
 * Functions known to be longer, with the length they may not exceed while they wait to be split
 * (each sits in code that is being changed elsewhere). An entry that is no longer needed fails
 * the test, so the list only shrinks.
 */
const KNOWN_LONG: Readonly<Record<string, number>> = {}

const ROOT = join(import.meta.dirname, '..', '..', '..')
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression'])

const isSupport = (name: string) =>
  /\.test(-d)?\.tsx?$/.test(name) ||
  name.endsWith('.d.ts') ||
  ['__fixtures__', 'test-utils', 'node_modules'].includes(name)

/** The source files (tests and their fixtures left out) under a folder. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (isSupport(entry.name)) return []
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|tsx|mts)$/.test(entry.name) ? [path] : []
  })
}

/** Every package's and app's `src`, from the repository root. */
function sourceFolders(): string[] {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(ROOT, group))
      .map((name) => join(ROOT, group, name, 'src'))
      .filter((folder) => existsSync(folder)),
  )
}

interface Node {
  readonly type?: string
  readonly start: number
  readonly end: number
  readonly id?: { readonly name?: string } | null
  readonly key?: { readonly start: number; readonly end: number }
}

/** `file name` and line count of every function in a file longer than {@link MAX_LINES}. */
function longFunctions(file: string): [string, number][] {
  const text = readFileSync(file, 'utf8')
  const { program } = parseSync(file, text)
  const lineStarts = [0]
  for (let index = 0; index < text.length; index += 1)
    if (text.charCodeAt(index) === 10) lineStarts.push(index + 1)
  const lineOf = (offset: number) => {
    let low = 0
    let high = lineStarts.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if ((lineStarts[middle] ?? 0) <= offset) low = middle
      else high = middle - 1
    }
    return low + 1
  }
  const found: [string, number][] = []
  const visit = (value: unknown, name: string): void => {
    if (typeof value !== 'object' || value === null) return
    if (Array.isArray(value)) {
      for (const item of value) visit(item, name)
      return
    }
    const node = value as Node
    let label = name
    if (node.type === 'VariableDeclarator' && node.id?.name !== undefined) label = node.id.name
    if (
      node.key !== undefined &&
      /^(MethodDefinition|Property|PropertyDefinition)$/.test(node.type ?? '')
    )
      label = text.slice(node.key.start, node.key.end)
    if (FUNCTIONS.has(node.type ?? '')) {
      label = node.id?.name ?? label
      const lines = lineOf(node.end) - lineOf(node.start) + 1
      if (lines > MAX_LINES) found.push([`${relative(ROOT, file)} ${label}`, lines])
    }
    for (const child of Object.values(node)) visit(child, label)
  }
  visit(program, '(anonymous)')
  return found
}

describe('source functions', () => {
  const long = sourceFolders().flatMap(sourceFiles).flatMap(longFunctions)

  it(`should span at most ${MAX_LINES} lines, comments included, in every package`, () => {
    const unknown = long.filter(([name]) => KNOWN_LONG[name] === undefined)
    expect(unknown.map(([name, lines]) => `${name}: ${lines} lines`)).toEqual([])
  })

  it('should keep the known long functions from growing, and list only those still long', () => {
    const grown = long.filter(([name, lines]) => lines > (KNOWN_LONG[name] ?? lines))
    expect(grown).toEqual([])
    const stillLong = new Set(long.map(([name]) => name))
    expect(Object.keys(KNOWN_LONG).filter((name) => !stillLong.has(name))).toEqual([])
  })

  it('should count a function from its first line to its last, comments included', () => {
    const fixture = join(import.meta.dirname, 'util', '__fixtures__', 'function-lengths.ts')
    expect(longFunctions(fixture)).toEqual([
      ['packages/core/src/util/__fixtures__/function-lengths.ts tooLong', 81],
    ])
    expect(sourceFolders().map((folder) => relative(ROOT, folder))).toContain('apps/demo/src')
  })
})
