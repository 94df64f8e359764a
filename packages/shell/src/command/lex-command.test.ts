import { describe, expect, it } from 'vitest'
import { lexCommand } from './lex-command.js'

describe('lexCommand', () => {
  it('should split words, remove quotes and escapes, and keep each word span', () => {
    const command = `git commit -m "fix: a | b" 'x y'\\ z`
    const { words, issues } = lexCommand(command)
    expect(issues).toEqual([])
    expect(words.map((word) => word.value)).toEqual(['git', 'commit', '-m', 'fix: a | b', 'x y z'])
    expect(words.map((word) => command.slice(word.start, word.end))).toEqual([
      'git',
      'commit',
      '-m',
      '"fix: a | b"',
      "'x y'\\ z",
    ])
  })

  it('should report each shell feature once, by code', () => {
    const codes = (command: string) => lexCommand(command).issues.map((issue) => issue.code)
    expect(codes('a | b | c')).toEqual(['command_pipeline'])
    expect(codes('a && b; c')).toEqual(['command_list'])
    expect(codes('echo "$(id)" `id`')).toEqual(['command_substitution'])
    expect(codes('FOO=1 npm test')).toEqual(['command_assignment'])
    expect(codes('cat ~/x a=~/y {a,b} *.ts > out')).toEqual([
      'command_tilde',
      'command_brace_expansion',
      'command_glob',
      'command_redirection',
    ])
    expect(codes('ls # a comment')).toEqual(['command_invalid'])
    expect(codes("echo 'open")).toEqual(['command_parse_error'])
  })

  it("should keep git's @{…} revision braces as text and flag every real brace expansion", () => {
    const codes = (command: string) => lexCommand(command).issues.map((issue) => issue.code)
    for (const command of [
      'git stash apply stash@{0}',
      'git log @{u}..HEAD',
      'git checkout @{-1}',
      'git rev-parse main@{2.days.ago}',
    ])
      expect({ command, codes: codes(command) }).toEqual({ command, codes: [] })
    for (const command of [
      'echo x@{a,b}',
      'echo @{1..3}',
      'echo a{0}',
      'echo @{0}}',
      'echo @{{0}',
      'echo @{a}{b,c}',
      'echo @{ a}',
    ])
      expect({ command, codes: codes(command) }).toEqual({
        command,
        codes: ['command_brace_expansion'],
      })
  })

  it('should keep find placeholders, inner tildes and inner hashes as plain text', () => {
    const { words, issues } = lexCommand('find . -exec echo {} ; a~b c#d')
    expect(issues.map((issue) => issue.code)).toEqual(['command_list'])
    expect(words.map((word) => word.value)).toEqual([
      'find',
      '.',
      '-exec',
      'echo',
      '{}',
      ';',
      'a~b',
      'c#d',
    ])
  })
})
