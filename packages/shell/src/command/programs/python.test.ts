import { beforeAll, describe, expect, it } from 'vitest'
import { checkerOf, verdictOf } from '../__fixtures__/verdicts.js'
import type { CommandChecker } from '../create-command-checker.js'

let checker: CommandChecker
beforeAll(async () => {
  checker = await checkerOf(['pytest', 'py.test', 'python3'])
})

const verdict = (command: string) => verdictOf(checker, command)

describe('pytest', () => {
  it('should refuse plugins by name and the upload of its output, under every name', () => {
    for (const command of [
      'pytest -p evil',
      'pytest -pevil',
      'py.test -p evil',
      'python3 -m pytest -p evil',
      'python3 -m py.test -p evil',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'command_inline_code' })
    for (const command of [
      'pytest --pastebin=all',
      'pytest --pastebin failed',
      'py.test --pastebin=all',
      'python3 -m pytest -q --pastebin=failed',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'command_flag_denied' })
  })

  it('should allow its everyday options under every name', () => {
    for (const command of [
      'pytest -p no:cacheprovider -q',
      'py.test -x -q tests',
      'pytest --lf --tb=short',
      'python3 -m pytest -k "login and not slow" tests',
      'pytest --co -q',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'allow' })
  })

  it('should name the policy line that lifts the upload', () => {
    const result = checker.check('pytest --pastebin=all')
    expect(result.allowed).toBe(false)
    if (!result.allowed)
      expect(result.issue.hint).toContain('commands.rules.pytest.allowFlags: ["--pastebin"]')
  })
})
