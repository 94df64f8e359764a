import { describe, expect, it } from 'vitest'
import { findSubcommand } from './global-options.js'

describe('findSubcommand', () => {
  it('should skip the values of global options that take the next word', () => {
    expect(findSubcommand('git', ['-C', 'x', 'status'])).toEqual({ index: 2, subcommand: 'status' })
    expect(findSubcommand('git', ['-c', 'a=b', '--git-dir', 'g', 'log'])).toEqual({
      index: 4,
      subcommand: 'log',
    })
    for (const option of [
      '--work-tree',
      '--namespace',
      '--shallow-file',
      '--attr-source',
      '--config-env',
    ])
      expect(findSubcommand('git', [option, 'push', 'status'])).toEqual({
        index: 2,
        subcommand: 'status',
      })
    expect(findSubcommand('npm', ['--prefix', 'test', 'exec'])).toEqual({
      index: 2,
      subcommand: 'exec',
    })
    expect(findSubcommand('docker', ['--config', 'ps', 'run'])).toEqual({
      index: 2,
      subcommand: 'run',
    })
    expect(findSubcommand('kubectl', ['-n', 'get', 'exec'])).toEqual({
      index: 2,
      subcommand: 'exec',
    })
    expect(findSubcommand('cargo', ['+nightly', 'build'])).toEqual({
      index: 1,
      subcommand: 'build',
    })
  })

  it('should accept attached and --opt=value spellings', () => {
    expect(findSubcommand('git', ['-Cdir', '--git-dir=g', 'diff'])).toEqual({
      index: 2,
      subcommand: 'diff',
    })
    expect(findSubcommand('npm', ['-s', 'test'])).toEqual({ index: 1, subcommand: 'test' })
  })

  it('should fail closed on an option before the subcommand that it does not know', () => {
    expect(findSubcommand('git', ['--frobnicate', 'status'])).toEqual({
      unknownOption: '--frobnicate',
    })
    expect(findSubcommand('npm', ['--weird', 'x', 'test'])).toEqual({ unknownOption: '--weird' })
    expect(findSubcommand('unknown-tool', ['-x', 'run'])).toEqual({ unknownOption: '-x' })
    expect(findSubcommand('unknown-tool', ['--x=1', 'run'])).toEqual({
      index: 1,
      subcommand: 'run',
    })
  })
})
