import { describe, expect, it } from 'vitest'
import { resolvePolicy } from '../policy/resolve-policy.js'
import { type PolicyInput, policySchema } from '../schema/policy-schema.js'
import { createPolicyCommandCheck, policyUsesCommands } from './create-policy-command-check.js'

function input(tools: PolicyInput['tools'], allow: string[] = []): PolicyInput {
  return { version: 1, workspace: { roots: ['/srv/repo'] }, tools, commands: { allow } }
}

describe('policyUsesCommands', () => {
  it('should be false for a policy without command arguments or allowed programs', () => {
    const policy = policySchema.parse(input({ view_file: { args: { file: { type: 'path' } } } }))
    expect(policyUsesCommands(policy)).toBe(false)
  })

  it('should be true for a command argument, nested in arrays too, or an allowed program', () => {
    const nested = input({
      t: { args: { c: { type: 'array', items: { type: 'array', items: { type: 'command' } } } } },
    })
    expect(policyUsesCommands(policySchema.parse(nested))).toBe(true)
    expect(policyUsesCommands(policySchema.parse(input({}, ['git'])))).toBe(true)
  })
})

describe('createPolicyCommandCheck', () => {
  it('should deny every command without parsing when the policy allows none', async () => {
    const { check, warnings } = await createPolicyCommandCheck(resolvePolicy(input({})))
    expect(warnings).toEqual([])
    for (const command of ['git status', 'ls | sh', ''])
      expect(check(command)).toMatchObject({
        allowed: false,
        issue: { code: 'command_not_allowed' },
      })
  })

  it('should parse and allow commands when the policy declares a command argument', async () => {
    const policy = resolvePolicy(
      input({ run: { args: { command: { type: 'command' } } } }, ['git']),
    )
    const { check } = await createPolicyCommandCheck(policy)
    expect(check('git status')).toEqual({ allowed: true, argv: ['git', 'status'] })
    expect(check('git status | sh')).toMatchObject({
      allowed: false,
      issue: { code: 'command_pipeline' },
    })
  })
})
