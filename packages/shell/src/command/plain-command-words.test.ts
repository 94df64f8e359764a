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
  .array(
    fc.constantFrom(
      'git',
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
      'time',
      'if',
      '~x',
    ),
    { minLength: 1, maxLength: 6 },
  )
  .chain((words) =>
    fc
      .array(fc.constantFrom(' ', '  ', ' '), {
        minLength: words.length + 1,
        maxLength: words.length + 1,
      })
      .map((blanks) => blanks.map((blank, index) => (index === 0 ? blank.trim() : blank)))
      .map((blanks) => words.map((text, index) => blanks[index] + text).join('')),
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
    evaluation = { parser, maxLength: 8192, context }
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
    let runs = 0
    fc.assert(
      fc.property(fc.oneof(command, plainish), (text) => {
        runs += 1
        const parsed = readCommand(parser, text)
        const words = plainCommandWords(text)
        if (words !== undefined) {
          taken += 1
          expect(parsed).toEqual({ issues: [], argv: words, commands: [words] })
        }
        // The checker's verdict (which takes the plain path) is the grammar path's verdict.
        const verdict = evaluateCommand(evaluation, text)
        if (parsed !== undefined && text.trim() !== '' && !/[^\t\n\x20-\x7e]/.test(text))
          expect(verdict).toEqual(judgeCommand(context, parsed))
      }),
      { numRuns: 4000 },
    )
    expect(taken).toBeGreaterThan(runs / 10)
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
        .sample(fc.oneof(command, plainish), { numRuns: 5000, seed: 33 })
        .filter((text) => plainCommandWords(text) !== undefined)
      expect(taken.length).toBeGreaterThan(500)
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
