import { PlanError } from '@plan/shell/common'
import { beforeAll, describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { createPlanGuard } from '../guard/create-plan-guard.js'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { signPlan } from './sign-plan.js'
import { verifyPlan } from './verify-plan.js'

const SECRET = 'a-test-secret-of-at-least-32-bytes!!'

function thrownCode(action: () => unknown): string | undefined {
  try {
    action()
  } catch (error) {
    return PlanError.isInstance(error) ? error.issues[0]?.code : 'not a PlanError'
  }
  return undefined
}

describe('signPlan', () => {
  let compiler: PlanCompiler
  let plan: CompiledPlan

  beforeAll(async () => {
    compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: { echo: { args: { text: { type: 'string' } } } },
    })
    plan = compiler.compile([
      { id: 'a', tool: 'echo', args: { text: 'one' } },
      { id: 'b', tool: 'echo', args: { text: 'two' }, depends_on: ['a'] },
    ])
  })

  it('should make a signature that verifies for the same plan and secret', () => {
    const signature = signPlan(plan, SECRET)
    expect(signature).toMatch(/^v1\.[0-9a-f]{64}$/)
    expect(verifyPlan(plan, signature, SECRET)).toEqual({ valid: true })
    expect(verifyPlan(JSON.parse(JSON.stringify(plan)), signature, SECRET).valid).toBe(true)
  })

  it('should refuse a secret shorter than 32 bytes', () => {
    expect(thrownCode(() => signPlan(plan, 'short'))).toBe('signature_invalid')
    expect(verifyPlan(plan, signPlan(plan, SECRET), 'short').valid).toBe(false)
  })

  it('should not verify after any edit to a step, even with the hash left as it was', () => {
    const signature = signPlan(plan, SECRET)
    const edits: ((copy: { steps: Record<string, unknown>[]; hash: string }) => void)[] = [
      (copy) => {
        ;(copy.steps[1] as { args: unknown }).args = { text: 'rm -rf /' }
      },
      (copy) => {
        ;(copy.steps[0] as { tool: unknown }).tool = 'other'
      },
      (copy) => {
        ;(copy.steps[1] as { dependsOn: unknown }).dependsOn = []
      },
      (copy) => {
        copy.steps.push({ id: 'c', tool: 'echo', args: { text: 'x' }, dependsOn: [] })
      },
      (copy) => {
        copy.hash = '0'.repeat(64)
      },
    ]
    for (const edit of edits) {
      const copy = JSON.parse(JSON.stringify(plan))
      edit(copy)
      const check = verifyPlan(copy, signature, SECRET)
      expect(check.valid).toBe(false)
      if (!check.valid) expect(check.issue.code).toBe('signature_invalid')
    }
  })

  it('should not verify with another secret or a malformed signature', () => {
    const signature = signPlan(plan, SECRET)
    expect(verifyPlan(plan, signature, `${SECRET}-other`).valid).toBe(false)
    expect(verifyPlan(plan, signature.toUpperCase(), SECRET).valid).toBe(false)
    expect(verifyPlan(plan, undefined, SECRET).valid).toBe(false)
  })
})

describe('createPlanGuard (signed approval)', () => {
  let compiler: PlanCompiler
  let plan: CompiledPlan

  beforeAll(async () => {
    compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: { echo: { args: { text: { type: 'string' } } } },
    })
    plan = compiler.compile([{ id: 'a', tool: 'echo', args: { text: 'one' } }])
  })

  it('should accept a plan with a valid signature', async () => {
    const guard = createPlanGuard(plan, {
      compiler,
      signature: signPlan(plan, SECRET),
      secret: SECRET,
    })
    expect((await guard.authorize({ tool: 'echo', args: { text: 'one' } })).allowed).toBe(true)
  })

  it('should refuse a tampered signed plan with signature_invalid', () => {
    const signature = signPlan(plan, SECRET)
    const tampered = JSON.parse(JSON.stringify(plan))
    tampered.steps[0].args = { text: 'two' }
    expect(
      thrownCode(() => createPlanGuard(tampered, { compiler, signature, secret: SECRET })),
    ).toBe('signature_invalid')
  })

  it('should refuse an unsigned plan when the policy requires signatures', async () => {
    const strict = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: { echo: { args: { text: { type: 'string' } } } },
      approval: { requireSignature: true },
    })
    const approved = strict.compile([{ id: 'a', tool: 'echo', args: { text: 'one' } }])
    expect(thrownCode(() => createPlanGuard(approved, { compiler: strict }))).toBe(
      'signature_invalid',
    )
    expect(thrownCode(() => createPlanGuard(approved, { compiler: strict, secret: SECRET }))).toBe(
      'signature_invalid',
    )
    const guard = createPlanGuard(approved, {
      compiler: strict,
      secret: SECRET,
      signature: signPlan(approved, SECRET),
    })
    const next = [{ id: 'b', tool: 'echo', args: { text: 'two' } }]
    const unsigned = guard.submitPlan(next, 'replan')
    expect(unsigned.success ? 'approved' : unsigned.issues[0]?.code).toBe('signature_invalid')
    const signed = guard.submitPlan(next, 'replan', {
      signature: signPlan(strict.compile(next), SECRET),
    })
    expect(signed.success).toBe(true)
  })

  it('should check the signature again when a run is restored', () => {
    const signature = signPlan(plan, SECRET)
    const guard = createPlanGuard(plan, { compiler, signature, secret: SECRET })
    const state = JSON.parse(JSON.stringify(guard.snapshot()))
    expect(() =>
      createPlanGuard(undefined, { compiler, state, signature, secret: SECRET }),
    ).not.toThrow()
    state.plan.steps[0].args = { text: 'two' }
    expect(
      thrownCode(() => createPlanGuard(undefined, { compiler, state, signature, secret: SECRET })),
    ).toBe('signature_invalid')
  })
})
