import { beforeAll, describe, expect, it } from 'vitest'
import type { PathScope } from '../types/path-scope.js'
import { type CommandChecker, createCommandChecker } from './create-command-checker.js'

const scope: PathScope = { roots: ['/srv/repo'], readOnly: [], deny: ['/srv/repo/.env'] }

// Characters no command needs: controls other than tab and newline, DEL, the C1 controls, format
// characters (bidirectional controls, zero-width ones, the BOM, tag characters), characters
// fonts draw as nothing, line and paragraph separators, and a lone surrogate.
const UNSAFE = [
  ...Array.from({ length: 0x20 }, (_, code) => code).filter(
    (code) => code !== 0x09 && code !== 0x0a,
  ),
  0x7f,
  0x80,
  0x85,
  0x9f,
  0xad,
  0x200b,
  0x200d,
  0x200e,
  0x202e,
  0x2060,
  0x2066,
  0x2069,
  0x2028,
  0x2029,
  0xfe00,
  0xfeff,
  0xe0041,
].map((code) => String.fromCodePoint(code))

// Every printable ASCII character but the single quote, which would close the quotes around it.
const PRINTABLE_ASCII = Array.from({ length: 0x7f - 0x20 }, (_, offset) =>
  String.fromCharCode(0x20 + offset),
)
  .filter((char) => char !== "'")
  .join('')

describe('characters of a command line', () => {
  let checker: CommandChecker
  beforeAll(async () => {
    checker = await createCommandChecker({
      policy: { allow: ['git', 'echo'], maxLength: 8192 },
      scope,
    })
  })
  const codeOf = (command: string) => {
    const result = checker.check(command)
    return result.allowed ? 'allowed' : result.issue.code
  }

  it('should refuse an invisible or control character in any place of the line', () => {
    for (const char of [...UNSAFE, '\uD800']) {
      for (const command of [
        `git status${char}`,
        `git${char}status`,
        `git commit -m "fix ${char} typo"`,
        `echo '${char}'`,
      ])
        expect({ command, code: codeOf(command) }).toEqual({ command, code: 'command_invalid' })
    }
  })

  it('should allow printable text, non-ASCII letters, emoji and tabs between words', () => {
    for (const command of [
      `echo '${PRINTABLE_ASCII}'`,
      'git commit -m "café ☕"',
      'git commit -m "日本語のメッセージ"',
      'git commit -m "❤️ fix"',
      'echo é',
      'echo "\u00a0"',
      'git\tstatus',
      'git status\t-s',
    ])
      expect({ command, code: codeOf(command) }).toEqual({ command, code: 'allowed' })
  })

  it('should leave a newline to the grammar, which reads it as a second command', () => {
    expect(codeOf('git status\n')).toBe('command_list')
    expect(codeOf('git status\nls')).toBe('command_list')
  })
})
