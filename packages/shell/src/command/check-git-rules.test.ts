import { describe, expect, it } from 'vitest'
import { checkGit } from './check-git-rules.js'

describe('checkGit', () => {
  it('should refuse a denied subcommand with its reason', () => {
    expect(checkGit(['daemon'])).toMatchObject([
      { code: 'command_inline_code', kind: 'exec', message: 'git daemon starts a server.' },
    ])
  })

  it('should read no denied subcommand from the prototype of its table', () => {
    for (const subcommand of ['constructor', 'toString', 'hasOwnProperty', '__proto__'])
      expect(checkGit([subcommand])).toEqual(checkGit(['frobnicate']))
    expect(checkGit(['frobnicate'])).toEqual([])
  })

  it('should refuse the diff and merge tools, which run a program per file', () => {
    const spellings = [
      ['difftool'],
      ['difftool', '--tool=vimdiff', 'HEAD~1'],
      ['difftool', '-y', '-t', 'meld'],
      ['difftool', '--dir-diff'],
      ['mergetool'],
      ['mergetool', '--tool', 'kdiff3', 'src/a.ts'],
      ['-C', 'sub', 'difftool', '--no-prompt'],
    ]
    for (const args of spellings)
      expect(checkGit(args).map((finding) => finding.code)).toContain('command_inline_code')
  })

  it('should allow the diff readers beside the tools', () => {
    for (const args of [
      ['diff'],
      ['diff', '--stat', 'HEAD~1'],
      ['diff', '--name-only', '--', 'src'],
      ['log', '--oneline', '-5'],
      ['range-diff', 'main...feature'],
    ])
      expect(checkGit(args)).toEqual([])
  })

  it('should read git config KEY as a read, and refuse every form that writes', () => {
    for (const args of [
      ['config', 'user.name'],
      ['config', '--global', 'user.email'],
      ['config', '--show-origin', '--bool', 'core.bare'],
      ['config', 'get', 'user.name'],
      ['config', '--get', 'remote.origin.url'],
      ['config', '--list', '--show-scope'],
    ])
      expect(checkGit(args), args.join(' ')).toEqual([])
    for (const args of [
      ['config', 'core.pager', 'less'],
      ['config', 'user.name', 'x', '--replace-all'],
      ['config', '--unset', 'user.name'],
      ['config', '--file', 'x.cfg', 'user.name'],
      ['config', '--type=bool', 'core.bare'],
      ['config', 'alias.st', '!sh'],
      ['config', 'set', 'core.pager', 'less'],
      ['config', 'edit'],
      ['config', '-e'],
      ['config', 'unset'],
      ['config', '--add', 'core.hooksPath'],
    ])
      expect(
        checkGit(args).map((finding) => finding.code),
        args.join(' '),
      ).toContain('command_inline_code')
  })

  it('should refuse git apply --unsafe-paths, and allow a patch inside the work tree', () => {
    expect(checkGit(['apply', '--unsafe-paths', 'x.patch'])).toMatchObject([
      { code: 'command_flag_denied', flag: '--unsafe-paths' },
    ])
    expect(checkGit(['apply', '--unsafe', 'x.patch'])).toMatchObject([
      { code: 'command_flag_denied', flag: '--unsafe-paths' },
    ])
    for (const args of [
      ['apply', 'x.patch'],
      ['apply', '--check', '-p1', 'x.patch'],
      ['apply', '--3way', 'x.patch'],
    ])
      expect(checkGit(args)).toEqual([])
  })
})
