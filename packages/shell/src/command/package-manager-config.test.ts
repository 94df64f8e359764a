import { beforeAll, describe, expect, it } from 'vitest'
import { checkerOf, verdictOf } from './__fixtures__/verdicts.js'
import type { CommandChecker } from './create-command-checker.js'

let checker: CommandChecker
beforeAll(async () => {
  checker = await checkerOf(['npm', 'pnpm', 'yarn'])
})

const verdict = (command: string) => verdictOf(checker, command)

describe('package manager configuration', () => {
  it('should allow reading a setting that holds no credential, and listing them', () => {
    for (const command of [
      'npm config get registry',
      'npm config get prefix cache',
      'npm config list',
      'npm config ls -l',
      'npm config list --json',
      'npm --loglevel warn config get registry',
      'pnpm config get store-dir',
      'yarn config get npmRegistryServer',
      'npm install c',
      'npm run config',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'allow' })
  })

  it('should refuse writing settings and reading credentials', () => {
    for (const command of [
      'npm config set script-shell ./x',
      'npm c set node-options=--require=./x.js',
      'npm --loglevel warn config set x y',
      'npm config edit',
      'npm config delete registry',
      'npm config fix',
      'npm config get',
      'npm config get //registry.npmjs.org/:_authToken',
      'npm config get _auth',
      'npm config get cafile certfile keyfile',
      'npm config list x',
      'pnpm config set x y',
      'yarn config set x y',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'command_wrapper' })
  })
})
