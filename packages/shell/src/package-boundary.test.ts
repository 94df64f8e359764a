import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..')
const SRC = import.meta.dirname

/** Every TypeScript file under a folder, relative to `src`. */
function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return typeScriptFiles(path)
    return entry.name.endsWith('.ts') ? [relative(SRC, path)] : []
  })
}

/** The package names a file imports (relative imports and `node:` built-ins left out). */
function packagesImported(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8')
  const specifiers = [...text.matchAll(/\bfrom\s+'([^']+)'|\bimport\s*\(?\s*'([^']+)'/g)].map(
    (match) => match[1] ?? match[2] ?? '',
  )
  return specifiers.filter(
    (specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'),
  )
}

describe('@plan/shell package boundary', () => {
  it('should depend on no @plan package, so that core can depend on it without a cycle', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >
    const declared = ['dependencies', 'peerDependencies', 'devDependencies'].flatMap((field) =>
      Object.keys(manifest[field] ?? {}),
    )
    expect(declared.filter((name) => name.startsWith('@plan/'))).toEqual([])
    const imports = typeScriptFiles(SRC).flatMap((file) =>
      packagesImported(file)
        .filter((name) => name.startsWith('@plan/'))
        .map((name) => `${file} imports ${name}`),
    )
    expect(imports).toEqual([])
  })

  it('should load no package at run time but zod, and zod only in the commands schema', () => {
    const loads = typeScriptFiles(SRC)
      .filter((file) => !file.endsWith('.test.ts'))
      .flatMap((file) => {
        const text = readFileSync(join(SRC, file), 'utf8')
        return [...text.matchAll(/^(?:import|export) (?!type )[^']*?from '([^.'][^']*)'/gm)]
          .map((match) => match[1] ?? '')
          .filter((name) => !name.startsWith('node:'))
          .map((name) => `${file} loads ${name}`)
      })
    expect(loads).toEqual(['schema/command-policy.ts loads zod'])
  })
})
