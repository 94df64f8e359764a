import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseSync } from 'rolldown/utils'
import { describe, expect, it } from 'vitest'

// Which folder may import which is drawn in docs/architecture.md and checked, with every other
// package's folders, by apps/conformance (package-graph.test.ts). What is checked here is what
// two folders may hold.

const SRC = import.meta.dirname

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

describe('src folder contents', () => {
  it('should keep types/ free of runtime code and schema/ free of packages but zod', () => {
    expect(sourceFiles().length).toBeGreaterThan(150)
    expect(sourceFiles().flatMap(contentProblems)).toEqual([])
  })
})
