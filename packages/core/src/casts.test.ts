import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parseSync } from 'rolldown/utils'
import { describe, expect, it } from 'vitest'

/**
 * The most casts (`as T` and `<T>x` but `as const`, and non-null `x!`) the source of core's
 * `src` may hold (in `command/`, in `guard/` and `flow/`, and elsewhere) and the sources of
 * `@plan/shell` and `@plan/json`: each is a claim the compiler cannot check, so the count only
 * goes down. Array reads go through `item-at.ts` of `@plan/shell` (core re-exports it),
 * characters of a string through `charAt`, unknown values through type guards such as `isRecord`.
 */
const MAX_CASTS = { command: 0, guardAndFlow: 23, rest: 18, shell: 8, json: 1 }

const SRC = import.meta.dirname
const SHELL_SRC = join(SRC, '..', '..', 'shell', 'src')
const JSON_SRC = join(SRC, '..', '..', 'json', 'src')

const isSupport = (name: string) =>
  /\.test(-d)?\.ts$/.test(name) || name === '__fixtures__' || name === 'test-utils'

/** The source files under a `src` folder, relative to it. */
function sourceFiles(root: string, folder = ''): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`
    if (isSupport(entry.name)) return []
    if (entry.isDirectory()) return sourceFiles(root, path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Every cast of the source under a `src` folder. */
function castsUnder(root: string): string[] {
  return sourceFiles(root).flatMap((file) => castsIn(file, readFileSync(join(root, file), 'utf8')))
}

interface Node {
  readonly type?: string
  readonly start: number
  readonly typeAnnotation?: { readonly start: number; readonly end: number }
}

/** Each cast in a text, as its line and the type it claims (`!` for a non-null assertion). */
function castsIn(file: string, text: string): string[] {
  const { program } = parseSync(file, text)
  const found: string[] = []
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return
    if (Array.isArray(value)) {
      for (const item of value) visit(item)
      return
    }
    const node = value as Node
    if (
      (node.type === 'TSAsExpression' || node.type === 'TSTypeAssertion') &&
      node.typeAnnotation !== undefined
    ) {
      const type = text.slice(node.typeAnnotation.start, node.typeAnnotation.end)
      const line = text.slice(0, node.start).split('\n').length
      if (type !== 'const') found.push(`${file}:${line} as ${type}`)
    } else if (node.type === 'TSNonNullExpression') {
      found.push(`${file}:${text.slice(0, node.start).split('\n').length} !`)
    }
    for (const child of Object.values(node)) visit(child)
  }
  visit(program)
  return found
}

describe('casts in src', () => {
  it('should stay within their ceiling, in command/, guard/ and flow/, and elsewhere', () => {
    const casts = castsUnder(SRC)
    const command = casts.filter((cast) => cast.startsWith('command/'))
    const guardAndFlow = casts.filter((cast) => /^(guard|flow)\//.test(cast))
    const rest = casts.filter((cast) => !/^(command|guard|flow)\//.test(cast))
    expect(command.length, command.join('\n')).toBeLessThanOrEqual(MAX_CASTS.command)
    expect(guardAndFlow.length, guardAndFlow.join('\n')).toBeLessThanOrEqual(MAX_CASTS.guardAndFlow)
    expect(rest.length, rest.join('\n')).toBeLessThanOrEqual(MAX_CASTS.rest)
  })

  it('should stay within their ceiling in @plan/shell', () => {
    const casts = castsUnder(SHELL_SRC)
    expect(casts.length, `${relative(SRC, SHELL_SRC)}:\n${casts.join('\n')}`).toBeLessThanOrEqual(
      MAX_CASTS.shell,
    )
  })

  it('should stay within their ceiling in @plan/json', () => {
    const casts = castsUnder(JSON_SRC)
    expect(casts.length, `${relative(SRC, JSON_SRC)}:\n${casts.join('\n')}`).toBeLessThanOrEqual(
      MAX_CASTS.json,
    )
  })

  it('should count every cast, nested ones too, and leave as const alone', () => {
    const text =
      'const a = b as number\nconst c = [1] as const\nconst d = (e as unknown) as string\n'
    expect(castsIn('sample.ts', text)).toEqual([
      'sample.ts:1 as number',
      'sample.ts:3 as string',
      'sample.ts:3 as unknown',
    ])
  })

  it('should count angle-bracket and non-null assertions, not satisfies, comments or strings', () => {
    const text =
      'const a = <number>b\nconst c = d!.e\nconst f = { g: 1 } satisfies object\n' +
      '// h as number\nconst i = "j as string"\n'
    expect(castsIn('sample.ts', text)).toEqual(['sample.ts:1 as number', 'sample.ts:2 !'])
  })
})
