import { beforeAll, describe, expect, it } from 'vitest'
import { commandPolicySchema } from '../../schema/command-policy.js'
import { type CommandChecker, createCommandChecker } from '../create-command-checker.js'

let checker: CommandChecker
beforeAll(async () => {
  checker = await createCommandChecker({
    policy: commandPolicySchema.parse({ allow: ['tar', 'gtar', 'bsdtar', 'unzip'] }),
    scope: { roots: ['/srv/repo'], readOnly: ['/srv/repo/.git'], deny: ['/srv/repo/.env'] },
  })
})

const verdict = (command: string) => {
  const result = checker.check(command)
  return { command, verdict: result.allowed ? 'allow' : result.issue.code }
}

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
