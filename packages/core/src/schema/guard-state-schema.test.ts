import { PlanError } from '@plan/shell/common'
import { beforeAll, describe, expect, it } from 'vitest'
import { echoCompiler } from '../guard/__fixtures__/echo-compiler.js'
import { createPlanGuard } from '../guard/create-plan-guard.js'
import GUARD_STATE_JSON_SCHEMA from '../guard/guard-state-schema.generated.json' with {
  type: 'json',
}
import { readGuardState } from '../guard/read-guard-state.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { guardStateJsonSchema, guardStateSchema } from './guard-state-schema.js'

let compiler: PlanCompiler

beforeAll(async () => {
  compiler = await echoCompiler()
})

async function savedRun(): Promise<Record<string, unknown>> {
  const plan = compiler.compile([
    { id: 'a', tool: 'echo', args: { text: 'one' } },
    { id: 'b', tool: 'echo', args: { text: 'two' }, depends_on: ['a'] },
  ])
  const guard = createPlanGuard(plan, { compiler })
  const decision = await guard.authorize({ tool: 'echo', args: { text: 'one' } })
  if (decision.allowed) guard.complete(decision.stepId, { lines: ['x'] })
  await guard.authorize({ tool: 'echo', args: { text: 'nope' } })
  return JSON.parse(JSON.stringify(guard.snapshot()))
}

/** Edits of a saved state that must be refused. */
const TAMPERED: [string, (state: Record<string, unknown>) => unknown][] = [
  ['a newer version', (state) => ({ ...state, version: 2 })],
  ['a negative call count', (state) => ({ ...state, calls: -1 })],
  ['a fractional call count', (state) => ({ ...state, calls: 1.5 })],
  ['a call count as text', (state) => ({ ...state, calls: '1' })],
  ['an unknown step status', (state) => ({ ...state, status: { a: 'approved' } })],
  ['a count per tool below zero', (state) => ({ ...state, callsPerTool: { echo: -3 } })],
  ['a plan that is a list', (state) => ({ ...state, plan: [] })],
  ['hashes that are not text', (state) => ({ ...state, seenPlanHashes: [1] })],
  ['an infinite start', (state) => ({ ...state, startedAt: Number.POSITIVE_INFINITY })],
  ['a stop without a message', (state) => ({ ...state, stopped: { code: 'x' } })],
  ['an unknown mode', (state) => ({ ...state, mode: 'batch' })],
  ['a missing status', ({ status: _, ...state }) => state],
  ['an undefined plan', (state) => ({ ...state, plan: undefined })],
  ['no object at all', () => 'state'],
]

describe('guardStateSchema', () => {
  it('should accept a snapshot after a trip through JSON, in zod and in the guard alike', async () => {
    const saved = await savedRun()
    expect(guardStateSchema.safeParse(saved).success).toBe(true)
    // The flow part is read by the flow tracker, which writes its defaults out.
    const { flow: savedFlow, ...savedState } = saved
    const { flow: readFlow, ...read } = readGuardState(saved)
    expect(JSON.parse(JSON.stringify(read))).toEqual(savedState)
    expect(readFlow?.labels).toEqual({ a: 'untrusted' })
    const resumed = createPlanGuard(undefined, { compiler, state: readGuardState(saved) })
    const { flow, ...resumedState } = resumed.snapshot()
    expect(resumedState).toEqual(savedState)
    expect(flow?.labels).toEqual((savedFlow as typeof flow)?.labels)
  })

  it('should accept a state of an older version without its optional parts', async () => {
    const { denials, turns, deniedRepeats, mode, flow, ...older } = await savedRun()
    expect(guardStateSchema.safeParse(older).success).toBe(true)
    expect(readGuardState(older).mode).toBeUndefined()
  })

  it.each(TAMPERED)('should refuse %s, in zod and in the guard alike', async (_, edit) => {
    const state = edit(await savedRun())
    expect(guardStateSchema.safeParse(state).success).toBe(false)
    let thrown: unknown
    try {
      readGuardState(state)
    } catch (error) {
      thrown = error
    }
    expect(PlanError.isInstance(thrown)).toBe(true)
    expect((thrown as PlanError).issues[0]?.code).toBe('state_corrupt')
  })

  it('should refuse outputs that are not JSON and a state behind throwing getters', async () => {
    const saved = await savedRun()
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(() => readGuardState({ ...saved, outputs: { a: cyclic } })).toThrow(PlanError)
    const hostile = {
      ...saved,
      get calls(): number {
        throw new Error('boom')
      },
    }
    expect(() => readGuardState(hostile)).toThrow(PlanError)
  })

  it('should give the JSON Schema the guard checks states with (run the generator when not)', () => {
    // scripts/write-json-schemas.mjs writes guard-state-json-schema.ts.
    expect(GUARD_STATE_JSON_SCHEMA).toEqual(guardStateJsonSchema())
    expect(guardStateJsonSchema()).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['version', 'plan', 'status', 'calls', 'replans']),
    })
  })
})
