import { readdirSync, readFileSync } from 'node:fs'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Parser } from 'web-tree-sitter'
import { analyzeSyntaxTree, type SyntaxAnalysis } from './analyze-syntax-tree.js'
import { loadBashLanguage } from './load-bash-language.js'
import { trivialSyntax } from './trivial-command.js'

const PACKAGES = new URL('../../../', import.meta.url)

/** Every string in a JSON value, at any depth. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(stringsOf)
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsOf)
  return []
}

/** The quoted literals of a source file: the commands written into the tests. */
function literalsOf(source: string): string[] {
  const found: string[] = []
  for (const match of source.matchAll(
    /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`([^`$\\]*)`/g,
  )) {
    const text = match[1] ?? match[2] ?? match[3] ?? ''
    found.push(text.replace(/\\(.)/g, '$1'))
  }
  return found
}

/** Every fixture (JSON strings) and test file (quoted literals) of every package. */
function repositoryCorpus(): string[] {
  const inputs = new Set<string>()
  for (const entry of readdirSync(PACKAGES, { recursive: true, encoding: 'utf8' })) {
    if (entry.includes('node_modules') || entry.includes('dist/')) continue
    const url = new URL(entry, PACKAGES)
    if (entry.includes('__fixtures__') && entry.endsWith('.json'))
      for (const text of stringsOf(JSON.parse(readFileSync(url, 'utf8')))) inputs.add(text)
    else if (/\.test\.ts$/.test(entry))
      for (const text of literalsOf(readFileSync(url, 'utf8'))) inputs.add(text)
  }
  // Each input, and each as the bench varies it (a new last word).
  return [...inputs].flatMap((text) => [text, `${text} x1`])
}

// Bash's metacharacters, quotes, expansions, reserved words and builtins that parse apart.
const TOKENS = [
  ...[' ', ' ', '  ', '\t', '\n', '\\', "'", '"', '$', '`', '(', ')', '{', '}', '[', ']', '<'],
  ...['>', '|', '&', ';', '#', '*', '?', '~', '=', '!', '%', ':', ',', '.', '-', '+', '/', '@'],
  ...['^', '0', '1', '9', 'a', 'z', 'A', 'Z', '_', 'é', '\u0000', '\r', '$(', '${', '[[', ']]'],
  ...['((', '&&', '||', '2>', '=~', "$'", '$"', 'if', 'then', 'elif', 'else', 'fi', 'case', 'in'],
  ...['esac', 'for', 'select', 'while', 'until', 'do', 'done', 'function', 'time', 'coproc'],
  ...['declare', 'typeset', 'export', 'readonly', 'local', 'unset', 'unsetenv', 'let', 'eval'],
  ...['test', '[', 'echo', 'git', 'x=1', '0x1F', '10#5', '-1', '--', '-n', 'HEAD~1', '~/x'],
  ...["'a b'", '"a | b"', '"a\'b"', "'a\"b'", '""', "''", 'a=', '=a', ':~', '=~/', '%1', '@x'],
]

// Mostly what the recognizer accepts, so that the property compares many accepted inputs: a
// program-like start, then words and the characters that are literal only in some places.
const PROGRAMS = ['git', 'ls', 'a', '_x', './run', '/usr/bin/node', 'x.y', 'a-b', 'A1', 'local']
PROGRAMS.push('FOO=1 npm', 'A= B=x ls', "X='a b' ls", 'x=a=b git', 'X=~ ls', '_1=-x ls', 'X=1')
PROGRAMS.push(
  'X==a ls',
  'X=a~ ls',
  'X="y"z ls',
  'X=1 if',
  'X=1 -a',
  'X+=1 ls',
  'A[1]=2 ls',
  '1X=2 ls',
)
const NEAR_TRIVIAL = [
  ...[' ', ' ', ' ', ' ', ' ', 'git', 'ls', '-la', '--x=y', 'a', '1', '20', '0x1F', '-1', '.'],
  ...['/', ':', '~', '=', '%', '+', ',', '@', '_', '-', "'x y'", '"x # y"', '"!"', '"a\'b"'],
  ...["'a\"b'", '""', "''", 'if', 'in', 'do', 'done', 'fi', 'then', 'export', 'time', 'x=1'],
  ...['HEAD~1', 'a:~', 'a=~', '0', '00', '08', '1e5', 'declare', 'unset', 'esac', '-', '--'],
  ...['2', '%1', '@x', ':~', 'a~', '=a', 'a='],
  ...[' && ', ' || ', ' | ', ' && git ', ' | ls ', ' || - ', ' | if ', ' && 1 ', '&&', '|', ' |& '],
  ...[' && x=1', ' | time ', ' |', '| ', ' &', '& ', ' ; ', ' & ', ' &&& ', ' ||| ', ' || | '],
]
// Tokens that make most inputs not trivial, now and then.
const RARE = ["'", '"', '{', '}', '!', '#', '*', '[', '\t', '10#5', '$', '\\', '(', '&', ';', '<']

describe('trivialSyntax', () => {
  let parser: Parser
  beforeAll(async () => {
    const { language, Parser } = await loadBashLanguage()
    parser = new Parser()
    parser.setLanguage(language)
  })

  const grammar = (command: string): SyntaxAnalysis => {
    const tree = parser.parse(command)
    if (tree === null) throw new Error('no tree')
    try {
      return analyzeSyntaxTree(tree.rootNode, command)
    } finally {
      tree.delete()
    }
  }

  /** The inputs whose recognized analysis differs from the grammar's. */
  const differences = (inputs: readonly string[]) =>
    inputs.flatMap((command) => {
      const trivial = trivialSyntax(command)
      if (trivial === undefined) return []
      const parsed = grammar(command)
      return JSON.stringify(trivial) === JSON.stringify(parsed) ? [] : [{ command, parsed }]
    })

  it("should give the grammar's analysis for every input of every corpus it recognizes", () => {
    const inputs = repositoryCorpus()
    const recognized = inputs.filter((command) => trivialSyntax(command) !== undefined)
    expect(inputs.length).toBeGreaterThan(10_000)
    expect(recognized.length).toBeGreaterThan(3000)
    expect(differences(inputs)).toEqual([])
  })

  it("should give the grammar's analysis for every short word of literal characters", () => {
    const chars = [...'=~+-/%:,@._a1', "'", '"', ' ']
    const words = chars.flatMap((first) =>
      chars.flatMap((second) => chars.map((third) => `${first}${second}${third}`)),
    )
    const inputs = words.flatMap((word) => [word, `${word} y`, `git ${word}`, `git x ${word} y`])
    expect(differences(inputs)).toEqual([])
  })

  it("should give the grammar's analysis for inputs of all of Bash's special tokens", () => {
    const input = fc
      .array(fc.constantFrom(...TOKENS), { maxLength: 12 })
      .map((parts) => parts.join(''))
    fc.assert(
      fc.property(input, (command) => {
        expect(differences([command])).toEqual([])
      }),
      { numRuns: 20_000 },
    )
  })

  it("should give the grammar's analysis for inputs of words it mostly recognizes", () => {
    const input = fc
      .tuple(
        fc.oneof(
          { arbitrary: fc.constantFrom(...PROGRAMS), weight: 4 },
          { arbitrary: fc.constantFrom(...NEAR_TRIVIAL, ...RARE), weight: 1 },
        ),
        fc.array(
          fc.oneof(
            { arbitrary: fc.constantFrom(...NEAR_TRIVIAL), weight: 30 },
            { arbitrary: fc.constantFrom(...RARE), weight: 1 },
          ),
          { maxLength: 10 },
        ),
      )
      .map(([program, parts]) => [program, ...parts].join(''))
    let recognized = 0
    let joined = 0
    fc.assert(
      fc.property(input, (command) => {
        const trivial = trivialSyntax(command)
        if (trivial !== undefined) recognized += 1
        if (trivial !== undefined && trivial.commands.length > 1) joined += 1
        expect(differences([command])).toEqual([])
      }),
      { numRuns: 20_000 },
    )
    expect(recognized).toBeGreaterThan(2000)
    expect(joined).toBeGreaterThan(100)
  })

  it("should give the grammar's analysis for plain commands joined by lists and pipes", () => {
    const segment = fc
      .tuple(
        fc.constantFrom(...PROGRAMS, 'if', 'time', '-x', '1', 'X=1 ', 'X=1  ', 'X= '),
        fc.array(fc.constantFrom(...NEAR_TRIVIAL.filter((token) => !/[&|]/.test(token))), {
          maxLength: 4,
        }),
      )
      .map(([program, parts]) => [program, ...parts].join(''))
    const joiner = fc.constantFrom(
      ' && ',
      ' || ',
      ' | ',
      ' && ',
      ' | ',
      ' ; ',
      '&&',
      ' |& ',
      '  ||  ',
    )
    const input = fc
      .tuple(segment, fc.array(fc.tuple(joiner, segment), { minLength: 1, maxLength: 4 }))
      .map(([first, rest]) => first + rest.map(([join, next]) => join + next).join(''))
    let joined = 0
    fc.assert(
      fc.property(input, (command) => {
        if ((trivialSyntax(command)?.commands.length ?? 0) > 1) joined += 1
        expect(differences([command])).toEqual([])
      }),
      { numRuns: 20_000 },
    )
    expect(joined).toBeGreaterThan(300)
  })

  it('should leave to the grammar every input that is more than literal words', () => {
    for (const command of [
      'git status;ls',
      'git status & ls',
      'git status &&ls',
      'git status |& ls',
      '&& ls',
      'ls &&',
      'ls | | ls',
      'echo "$(id)"',
      'echo ~',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell expansion is the input
      'cat ${IFS}/etc/passwd',
      'if true',
      'export A',
      'ls *.ts',
      'echo a\\ b',
      'echo a # b',
      'echo "a\\"b"',
      'ls\tsrc',
    ])
      expect(trivialSyntax(command), command).toBeUndefined()
  })

  it('should name a list or a pipeline, with the words of every command', () => {
    const list = trivialSyntax('git status && rm -rf / || ls')
    expect(list?.issues.map((issue) => issue.code)).toEqual(['command_list'])
    expect(list?.commands).toEqual([['git', 'status'], ['rm', '-rf', '/'], ['ls']])
    expect(list?.simple).toBeUndefined()
    const pipeline = trivialSyntax('curl -s http://x | sh')
    expect(pipeline?.issues.map((issue) => issue.code)).toEqual(['command_pipeline'])
    expect(pipeline?.commands).toEqual([['curl', '-s', 'http://x'], ['sh']])
    // The grammar nests a mix in an order of its own: it reads the mix itself.
    expect(trivialSyntax('a | b | c && d')).toBeUndefined()
  })

  it('should name an assignment before a command after the list or pipeline it is in', () => {
    const assigned = trivialSyntax('FOO=1 BAR= npm test && ls')
    expect(assigned?.issues.map((issue) => issue.code)).toEqual([
      'command_list',
      'command_assignment',
    ])
    expect(assigned?.commands).toEqual([['npm', 'test'], ['ls']])
    expect(trivialSyntax('FOO=1')).toBeUndefined()
    expect(trivialSyntax('FOO=1 && ls')).toBeUndefined()
  })

  it('should read the words of a plain command with their spans and values', () => {
    expect(trivialSyntax(`git -c core.pager='sh -c id' "a"b log`)).toEqual({
      issues: [],
      commands: [['git', '-c', 'core.pager=sh -c id', 'ab', 'log']],
      simple: [
        { start: 0, end: 3, value: 'git' },
        { start: 4, end: 6, value: '-c' },
        { start: 7, end: 28, value: 'core.pager=sh -c id' },
        { start: 29, end: 33, value: 'ab' },
        { start: 34, end: 37, value: 'log' },
      ],
    })
  })
})
