import { PolicyError } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { testPolicy } from '../test/test-workspace.js'
import { testTools } from '../test-utils/test-tools.js'
import { createPlanGuardedTools } from './create-plan-guarded-tools.js'

describe('createPlanGuardedTools with policy examples', () => {
  it('should refuse a policy whose example it decides otherwise, naming the example', async () => {
    const policy = testPolicy('/srv/repo')
    const tools = {
      ...policy.tools,
      view_file: { ...policy.tools.view_file, examples: { allow: [{ file: '../../etc/passwd' }] } },
    }
    const error = await createPlanGuardedTools({
      policy: { ...policy, tools },
      tools: testTools().tools,
    }).catch((thrown: unknown) => thrown)
    expect(PolicyError.isInstance(error)).toBe(true)
    expect((error as PolicyError).issues).toEqual([
      expect.objectContaining({
        code: 'policy_example_failed',
        path: ['tools', 'view_file', 'examples', 'allow', 0],
        message: expect.stringContaining('path_outside_workspace'),
      }),
    ])
  })
})
