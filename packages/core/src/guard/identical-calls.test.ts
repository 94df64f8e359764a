import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuard } from '../types/plan-guard.js'
import {
  createTestCompiler,
  createTestWorkspace,
  type TestWorkspace,
} from './__fixtures__/test-workspace.js'
import { createPlanGuard } from './create-plan-guard.js'

let counter = 0

async function runTurn(guard: PlanGuard, tool: string, args: Record<string, unknown>) {
  counter += 1
  const id = `call_${counter}`
  const submitted = guard.submitPlan([{ id, tool, args }], 'turn')
  if (!submitted.success) return submitted.issues[0]?.code
  const result = await guard.authorize({ tool, args, callId: id })
  if (!result.allowed) return result.issue.code
  guard.complete(result.stepId, 'ok')
  return 'allowed'
}

describe('createPlanGuard (identical calls)', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
    compiler = await createTestCompiler(workspace.root, { budgets: { maxIdenticalCalls: 3 } })
  })
  afterEach(async () => {
    await workspace.remove()
  })

  it('should let an edit → test loop run the same test more often than maxIdenticalCalls', async () => {
    const guard = createPlanGuard(undefined, { compiler })
    for (let round = 0; round < 5; round += 1) {
      expect(await runTurn(guard, 'run_command', { command: 'ls' })).toBe('allowed')
      const content = `attempt ${round}`
      expect(await runTurn(guard, 'write_file', { file: 'a.txt', content })).toBe('allowed')
    }
    expect(guard.stopReason()).toBeUndefined()
  })

  it('should still stop the same call repeated with nothing in between', async () => {
    const guard = createPlanGuard(undefined, { compiler })
    for (let round = 0; round < 3; round += 1)
      expect(await runTurn(guard, 'run_command', { command: 'ls' })).toBe('allowed')
    expect(await runTurn(guard, 'run_command', { command: 'ls' })).toBe('repeated_call')
    expect(guard.stopReason()?.code).toBe('repeated_call')
  })

  it('should count the same call again from zero after a different call (plan mode)', async () => {
    const steps = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id, index) => ({
      id,
      tool: 'echo',
      args: { text: index % 2 === 0 ? 'same' : `other ${index}` },
    }))
    const guard = createPlanGuard(compiler.compile(steps), { compiler })
    for (const step of steps) {
      const result = await guard.authorize({ tool: 'echo', args: step.args, stepId: step.id })
      expect(result.allowed).toBe(true)
      if (result.allowed) guard.complete(result.stepId, 'ok')
    }
  })
})
