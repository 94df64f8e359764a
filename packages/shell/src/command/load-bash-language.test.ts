import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Parser, Tree } from 'web-tree-sitter'
import { branchTableCount, functionSizes } from '../../scripts/outline-wasm-functions.mjs'
import { loadBashLanguage } from './load-bash-language.js'

const require = createRequire(import.meta.url)
const UPSTREAM = join(
  dirname(require.resolve('tree-sitter-bash/package.json')),
  'tree-sitter-bash.wasm',
)
const VENDORED = new URL('../../vendor/tree-sitter-bash.wasm', import.meta.url)

const corpus = JSON.parse(
  readFileSync(new URL('./__fixtures__/command-corpus.json', import.meta.url), 'utf8'),
) as { readonly cases: readonly { readonly command: string }[] }
const gtfobins = JSON.parse(
  readFileSync(new URL('./__fixtures__/gtfobins.json', import.meta.url), 'utf8'),
) as { readonly techniques: readonly { readonly code: string }[] }

const TOKENS = [
  ...[' ', '\t', '\n', '\r', '\\', "'", '"', '$', '`', '(', ')', '{', '}', '[', ']', '<', '>'],
  ...['|', '&', ';', '#', '*', '?', '~', '=', '!', '%', ':', ',', '.', '-', '+', '/', '0', '9'],
  ...['a', 'z', 'A', 'Z', '_', 'é', 'λ', '\u0000', '$(', '${', '$((', '<<EOF\n', '\nEOF\n', '<<-'],
  ...['[[', ']]', '((', '))', '&&', '||', '2>&1', '>|', '<&-', '=~', '$"', "$'", '${#', '${!'],
  ...['if ', 'then ', 'elif ', 'else ', 'fi', 'case ', ' in ', 'esac', ';;', ';&', 'for ', 'do '],
  ...['done', 'while ', 'until ', 'select ', 'function ', 'declare ', 'export ', 'local ', 'unset'],
  ...['echo ', 'git log -n 3 ', 'test ', 'x=1 ', 'a[1]=2 ', '"$@"', '$?', '$#', '**', '\\\n'],
]

/** Every node of a tree, in order, with what the checks read of it. */
function describeTree(tree: Tree): string[] {
  const lines: string[] = []
  const cursor = tree.walk()
  const visit = (): void => {
    const { nodeType, currentFieldName, startIndex, endIndex, nodeIsMissing } = cursor
    lines.push(`${nodeType} ${currentFieldName} ${startIndex}-${endIndex} ${nodeIsMissing}`)
    if (!cursor.gotoFirstChild()) return
    do visit()
    while (cursor.gotoNextSibling())
    cursor.gotoParent()
  }
  visit()
  cursor.delete()
  lines.push(tree.rootNode.toString())
  return lines
}

function treeOf(parser: Parser, source: string): string[] {
  const tree = parser.parse(source)
  if (tree === null) throw new Error('No tree.')
  const lines = describeTree(tree)
  tree.delete()
  return lines
}

// Thousands of parses through two grammars: ~15 s alone, several times that on a busy machine.
const LONG = 600_000

describe('loadBashLanguage', () => {
  let vendored: Parser
  let upstream: Parser
  beforeAll(async () => {
    const { language, Parser, Language } = await loadBashLanguage()
    vendored = new Parser()
    vendored.setLanguage(language)
    upstream = new Parser()
    upstream.setLanguage(await Language.load(readFileSync(UPSTREAM)))
  })

  it('should ship a grammar whose functions are all under 64 KB', () => {
    const sizes = functionSizes(readFileSync(VENDORED))
    expect(Math.max(...sizes)).toBeLessThan(64 * 1024)
  })

  it('should read every node type and field name as the upstream runtime does', async () => {
    // The vendored runtime decodes these short C strings its own way (scripts/copy-grammar.mjs).
    const reference = await import('web-tree-sitter')
    await reference.Parser.init()
    const upstreamLanguage = await reference.Language.load(readFileSync(UPSTREAM))
    const { language } = await loadBashLanguage()
    expect(language.types).toEqual(upstreamLanguage.types)
    expect(language.fields).toEqual(upstreamLanguage.fields)
    expect(language.types).toContain('command_name')
  })

  it('should branch from each outlined case without a br_table of its own', () => {
    // The upstream grammar's tables only: a br_table at each of the lexer's ~950 call sites,
    // deep in the switch's blocks, costs V8 work in proportion to that depth.
    expect(branchTableCount(readFileSync(VENDORED))).toBe(branchTableCount(readFileSync(UPSTREAM)))
  })

  it('should parse every corpus and GTFOBins command to the tree the upstream grammar gives', {
    timeout: LONG,
  }, () => {
    const commands = [
      ...corpus.cases.map((entry) => entry.command),
      ...gtfobins.techniques.map((technique) => technique.code),
    ]
    expect(commands.length).toBeGreaterThan(500)
    for (const command of commands) {
      expect(treeOf(vendored, command)).toEqual(treeOf(upstream, command))
    }
  })

  it('should parse generated shell text to the tree the upstream grammar gives', {
    timeout: LONG,
  }, () => {
    const source = fc
      .array(fc.oneof(fc.constantFrom(...TOKENS), fc.string()), { maxLength: 40 })
      .map((parts) => parts.join(''))
    fc.assert(
      fc.property(source, (command) => {
        expect(treeOf(vendored, command)).toEqual(treeOf(upstream, command))
      }),
      { numRuns: 10_000 },
    )
  })

  it('should parse arbitrary text to the tree the upstream grammar gives', {
    timeout: LONG,
  }, () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (command) => {
        expect(treeOf(vendored, command)).toEqual(treeOf(upstream, command))
      }),
      { numRuns: 3000 },
    )
  })
})
