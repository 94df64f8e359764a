import { beforeAll, describe, expect, it } from 'vitest'
import { checkerOf, verdictOf } from '../__fixtures__/verdicts.js'
import type { CommandChecker } from '../create-command-checker.js'

let checker: CommandChecker
beforeAll(async () => {
  checker = await checkerOf(['tar', 'gtar', 'bsdtar', 'unzip'])
})

const verdict = (command: string) => verdictOf(checker, command)

describe('extracting archives', () => {
  it('should refuse the options that keep absolute or ../ member names', () => {
    for (const command of [
      'tar -xPf a.tar',
      'tar xPf a.tar',
      'tar -x -P -f a.tar',
      'tar -x --absolute-names -f a.tar',
      'tar -x --absol -f a.tar',
      'gtar -xPf a.tar',
      'bsdtar -xPf a.tar',
      'unzip -: a.zip',
      'unzip -o: a.zip -d out',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'command_flag_denied' })
  })

  it('should allow extracting below the target folder', () => {
    for (const command of [
      'tar -xf a.tar',
      'tar xzf a.tgz',
      'tar -xzf a.tgz -C out',
      'tar -tvf a.tar',
      'tar -xf a.tar --strip-components=1',
      'unzip a.zip',
      'unzip -o a.zip -d out',
      'unzip -l a.zip',
      'unzip -P secret a.zip',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'allow' })
  })
})
