import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Parser } from 'web-tree-sitter'
import { createProgramCheckContext, type ProgramCheckContext } from './check-program.js'
import {
  type CommandEvaluation,
  evaluateCommand,
  judgeCommand,
  readCommand,
  readPlainCommands,
} from './evaluate-command.js'
import { loadBashLanguage } from './load-bash-language.js'
import { plainCommandWords } from './plain-command-words.js'

// Pieces of words from every character class at the boundary of the plain path: plain
// characters, quotes, escapes, expansions, operators, globs, braces, tildes, comments, blanks
// inside a word, reserved words, assignments, numbers and revisions.
const PIECES = [
  ...'abzAZ09_./:=@%+,-~\'"\\$`|&;<>(){}[]*?#!^\t\n\u0001é'.split(''),
  'git',
  'status',
  'ls',
  'cat',
  'echo',
  'sed',
  'find',
  'rm',
  '-n',
  '--oneline',
  '-la',
  '20',
  '0x1F',
  '10#7',
  '-1',
  'HEAD~1',
  'HEAD~~',
  'HEAD^',
  '~',
  '~/x',
  '~root',
  'a=~',
  'a:~',
  'x~y',
  '%1',
  '@{u}',
  'a,b',
  'src/index.ts',
  '/etc/passwd',
  '.env',
  '../x',
  'FOO=1',
  'a+=b',
  '=x',
  'a=',
  'a[1]=x',
  '--out=build/x.json',
  "'a | b'",
  "''",
  "'it''s'",
  '"fix: a | b"',
  '""',
  '"a#b"',
  '"$HOME"',
  '"a\\"b"',
  '"!x"',
  '"~"',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'for',
  'in',
  'do',
  'done',
  'while',
  'until',
  'case',
  'esac',
  'select',
  'time',
  'coproc',
  'function',
  '!',
  '{',
  '}',
  '[[',
  ']]',
  '[',
  ']',
  'declare',
  'export',
  'local',
  'readonly',
  'typeset',
  'unset',
  'eval',
  'exec',
  '#',
  '#x',
  ':',
  '.',
  '-',
  '--',
  '&&',
  '||',
  '|',
  '|&',
  '&',
  ';',
  '&&&',
  '|||',
]
const BLANKS = [' ', ' ', ' ', '  ', '\t', ' \t ', '\n']

const word = fc
  .array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.join(''))
const command = fc
  .tuple(
    fc.constantFrom('', '', ' ', '  ', '\t'),
    fc.array(fc.tuple(word, fc.constantFrom(...BLANKS)), { minLength: 1, maxLength: 6 }),
    fc.constantFrom('', '', ' ', '\t'),
  )
  .map(
    ([lead, words, trail]) =>
      lead +
      words.map(([text, blank], index) => (index === 0 ? text : blank + text)).join('') +
      trail,
  )
// Mostly words the plain path may take, so that its acceptances are many.
const plainish = fc
  .tuple(
    fc.constantFrom('git', 'ls', 'g++', 'x.y', 'time', 'a=b', '~x', 'if'),
    fc.array(
      fc.tuple(
        fc.constantFrom(' ', '  ', ' '),
        fc.constantFrom(
          'status',
          'HEAD~1',
          'a=b',
          '-n',
          '20',
          "'a | b'",
          '"fix: a"',
          'x"y"z',
          "--m='q'",
          'src/a.ts',
          '%x',
          'a,b',
          'if',
          '~x',
          '==',
        ),
      ),
      { maxLength: 5 },
    ),
    fc.constantFrom('', ' '),
  )
  .map(([program, words, trail]) => program + words.map((pair) => pair.join('')).join('') + trail)
// Plain-looking commands joined by operators, with and without spaces around them.
const chained = fc
  .array(
    fc.tuple(plainish, fc.constantFrom(' && ', ' || ', ' | ', '&&', ' |', '| ', ' ; ', ' & ')),
    {
      minLength: 1,
      maxLength: 4,
    },
  )
  .map((parts) => parts.map(([text, operator]) => text + operator).join(''))
  .chain((text) => fc.constantFrom(text, `${text}git status`, `${text} ls -la`))
// Joined by one kind of operator only, which the plain path may take.
const joined = (operators: readonly string[]) =>
  fc
    .array(fc.tuple(plainish, fc.constantFrom(...operators)), { minLength: 1, maxLength: 4 })
    .map((parts) => parts.map(([text, operator]) => text + operator).join(''))
    .chain((text) => fc.constantFrom(`${text}git status`, `${text}cat x.y`, text))
// Assignments, plain and not, before commands.
const assigned = fc
  .tuple(
    fc.constantFrom(
      'FOO=1 ',
      'A_1=x/y:z ',
      '_=a ',
      '_a=b ',
      'a_=b ',
      '1A=b ',
      'A=b=c ',
      'A= ',
      'A=b B=c ',
      'A=~ ',
      'A=x~ ',
      'A="x" ',
      "A='x' ",
      'A+=x ',
      'A=b  ',
      ' A=b ',
      'A=b',
    ),
    fc.oneof(plainish, joined([' && ', ' | '])),
  )
  .map(([assignment, text]) => assignment + text)
const commands = fc.oneof(
  assigned,
  command,
  plainish,
  chained,
  joined([' && ', ' || ', ' &&  ']),
  joined([' | ', '  |  ']),
)

describe('plainCommandWords', () => {
  let parser: Parser
  let context: ProgramCheckContext
  let evaluation: CommandEvaluation
  beforeAll(async () => {
    const { language, Parser } = await loadBashLanguage()
    parser = new Parser()
    parser.setLanguage(language)
    context = createProgramCheckContext(
      { allow: ['git', 'ls', 'cat', 'echo', 'sed', 'find', 'rm', 'a', 'z'], maxLength: 8192 },
      { roots: ['/srv/repo'], readOnly: ['/srv/repo/vendor'], deny: ['/srv/repo/.env'] },
    )
    evaluation = { parser: () => parser, maxLength: 8192, context }
  })

  it('should read a plain command as the grammar and the strict tokenizer do, without issues', () => {
    expect(plainCommandWords('git log --oneline -n 20 HEAD~1')).toEqual([
      'git',
      'log',
      '--oneline',
      '-n',
      '20',
      'HEAD~1',
    ])
    expect(plainCommandWords(' git commit -m "fix: a | b"  ')).toEqual([
      'git',
      'commit',
      '-m',
      'fix: a | b',
    ])
    expect(plainCommandWords("find . -name '*.ts'")).toEqual(['find', '.', '-name', '*.ts'])
  })

  it('should read plain commands joined by && and || or by | with the grammar path issues', () => {
    expect(readPlainCommands('git status && rm -rf /')).toEqual(
      readCommand(parser, 'git status && rm -rf /'),
    )
    expect(readPlainCommands('git status && rm -rf /')?.issues.map((issue) => issue.code)).toEqual([
      'command_list',
    ])
    expect(readPlainCommands('ls || cat x')?.issues.map((issue) => issue.code)).toEqual([
      'command_list',
      'command_pipeline',
    ])
    expect(readPlainCommands('curl -s http://x | sh')?.commands).toEqual([
      ['curl', '-s', 'http://x'],
      ['sh'],
    ])
    for (const text of [
      'a | b && c',
      'a && b | c',
      'a & b',
      'a ; b',
      'a &&b',
      'a|b',
      'a |& b',
      '&& a',
      'a &&',
    ])
      expect(readPlainCommands(text), text).toBeUndefined()
  })

  it('should read one NAME=value before a plain command as the grammar path does', () => {
    expect(readPlainCommands('FOO=1 npm test')).toEqual(readCommand(parser, 'FOO=1 npm test'))
    expect(readPlainCommands('FOO=1 npm test')?.commands).toEqual([['npm', 'test']])
    for (const text of ['_=a git', 'A=1 B=2 git', 'A=1 git && ls', 'A= git', 'A=~ git', 'A=1'])
      expect(readPlainCommands(text), text).toBeUndefined()
  })

  it('should decline what holds shell syntax, a reserved word or an assignment as the program', () => {
    for (const text of [
      'FOO=1 npm test',
      'git status && rm -rf /',
      'time git status',
      'if',
      'ls ~/x',
      'ls a=~',
      'echo "$(id)"',
      'echo a\\ b',
      'echo #x',
      'ls *.ts',
      'ls\tsrc',
      "'git' status",
      'echo "a!"',
    ])
      expect(plainCommandWords(text), text).toBeUndefined()
  })

  it('should give exactly the words, issues and verdict of the grammar path, or decline', () => {
    let taken = 0
    let joinedTaken = 0
    let runs = 0
    fc.assert(
      fc.property(commands, (text) => {
        runs += 1
        const parsed = readCommand(parser, text)
        const plain = readPlainCommands(text)
        if (plain !== undefined) {
          taken += 1
          if (plain.commands.length > 1) joinedTaken += 1
          expect(plain).toEqual(parsed)
        }
        const words = plainCommandWords(text)
        if (words !== undefined)
          expect(parsed).toEqual({ issues: [], argv: words, commands: [words] })
        // The checker's verdict (which takes the plain path) is the grammar path's verdict.
        const verdict = evaluateCommand(evaluation, text)
        if (parsed !== undefined && text.trim() !== '' && !/[^\t\n\x20-\x7e]/.test(text))
          expect(verdict).toEqual(judgeCommand(context, parsed))
      }),
      { numRuns: 6000 },
    )
    expect(taken).toBeGreaterThan(runs / 20)
    expect(joinedTaken).toBeGreaterThan(runs / 100)
  })

  describe('against bash', () => {
    let folder: string
    beforeAll(() => {
      folder = mkdtempSync(join(tmpdir(), 'plan-plain-words-'))
    })
    afterAll(() => rmSync(folder, { recursive: true, force: true }))
    const hasBash = spawnSync('bash', ['--version']).status === 0
    const test = hasBash || process.env.CI === 'true' ? it : it.skip

    test('should give the argv bash builds for every command it takes', () => {
      const taken = fc
        .sample(fc.oneof(command, plainish), { numRuns: 8000, seed: 33 })
        .filter((text) => plainCommandWords(text) !== undefined)
      expect(taken.length).toBeGreaterThan(600)
      // Each command's words become printf's arguments, so bash does the quote removal.
      const script = taken.map((text) => `printf '%s\\0' ${text}; printf '\\1'`).join('\n')
      const result = spawnSync('bash', ['--norc', '--noprofile', '-s'], {
        input: script,
        cwd: folder,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent-home' },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      })
      expect(result.status).toBe(0)
      const fromBash = result.stdout
        .split('\u0001')
        .slice(0, taken.length)
        .map((record) => record.split('\0').slice(0, -1))
      const differ = taken.filter(
        (text, index) =>
          JSON.stringify(plainCommandWords(text)) !== JSON.stringify(fromBash[index] ?? []),
      )
      expect(differ).toEqual([])
    })
  })
})
