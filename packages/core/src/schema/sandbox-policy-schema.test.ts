import { describe, expect, it } from 'vitest'
import { parsePolicyFast } from '../policy/parse-policy-fast.js'
import { policySchema, sandboxPolicySchema } from './policy-schema.js'

describe('sandboxPolicySchema', () => {
  it('should accept absolute paths in read', () => {
    const parsed = sandboxPolicySchema.parse({ read: ['/opt/toolchain', '/srv/shared/data'] })
    expect(parsed.read).toEqual(['/opt/toolchain', '/srv/shared/data'])
  })

  it('should refuse relative, empty and NUL-holding paths in read', () => {
    for (const path of ['opt/toolchain', '', './x', '~/bin', '/a\0b']) {
      const parsed = sandboxPolicySchema.safeParse({ read: [path] })
      expect([path, parsed.success]).toEqual([path, false])
      expect(parsed.error?.issues[0]?.path).toEqual(['read', 0])
    }
  })

  it('should read a policy with sandbox.read in the fast reader exactly as the schema does', () => {
    const policy = {
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: {},
      sandbox: { read: ['/opt/toolchain'] },
    }
    expect(policySchema.parse(policy).sandbox?.read).toEqual(['/opt/toolchain'])
    expect(parsePolicyFast(policy)).toEqual(policySchema.parse(policy))
  })
})
