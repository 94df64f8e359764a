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
})
