import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { executePlan } from '../execute/execute-plan.js'
import type { PolicyInput } from '../schema/policy-schema.js'
import type { JsonObject } from '../types/json-value.js'
import { createPlanGuard } from './create-plan-guard.js'
import { normalizeUrlArguments } from './normalize-url-arguments.js'

const policy: PolicyInput = {
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: {
    fetch_page: {
      args: {
        url: { type: 'string', format: 'url', hosts: ['example.com'] },
        mirrors: {
          type: 'array',
          required: false,
          items: { type: 'string', format: 'url', schemes: ['https', 'http'] },
        },
        note: { type: 'string', required: false },
      },
    },
  },
}

describe('normalizeUrlArguments', () => {
  it('should replace URL values, in arrays too, and leave other strings alone', async () => {
    const compiler = await createPlanCompiler(policy)
    const specs = compiler.policy.tools.get('fetch_page')?.args ?? {}
    const args: JsonObject = {
      url: 'HTTPS://Example.com:443/a/../b',
      mirrors: ['http://Mirror.example.org:80'],
      note: 'HTTPS://Example.com',
    }
    normalizeUrlArguments(specs, args)
    expect(args).toEqual({
      url: 'https://example.com/b',
      mirrors: ['http://mirror.example.org/'],
      note: 'HTTPS://Example.com',
    })
  })
})

describe('createPlanGuard (URL arguments)', () => {
  it('should hand the tool the normalised URL that was checked, not the planned text', async () => {
    const compiler = await createPlanCompiler(policy)
    const plan = compiler.compile([
      { id: 'get', tool: 'fetch_page', args: { url: 'HTTPS://EXAMPLE.com/docs/./guide' } },
    ])
    const guard = createPlanGuard(plan, { compiler })
    const decision = await guard.authorize({
      tool: 'fetch_page',
      args: { url: 'HTTPS://EXAMPLE.com/docs/./guide' },
    })
    expect(decision).toEqual({
      allowed: true,
      stepId: 'get',
      args: { url: 'https://example.com/docs/guide' },
    })
  })

  it('should do the same when executePlan runs the plan', async () => {
    const compiler = await createPlanCompiler(policy)
    const plan = compiler.compile([
      { id: 'get', tool: 'fetch_page', args: { url: 'https://Example.com:443' } },
    ])
    const received: unknown[] = []
    const result = await executePlan(
      plan,
      {
        fetch_page: (args) => {
          received.push(args.url)
          return 'ok'
        },
      },
      { compiler },
    )
    expect(result.status).toBe('completed')
    expect(received).toEqual(['https://example.com/'])
  })
})
