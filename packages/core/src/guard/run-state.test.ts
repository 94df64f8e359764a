import { canonicalJson } from '@plan/json'
import { beforeAll, describe, expect, it } from 'vitest'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { echoCompiler } from './__fixtures__/echo-compiler.js'
import { callKey } from './call-key.js'
import { RunState } from './run-state.js'

let compiler: PlanCompiler

beforeAll(async () => {
  compiler = await echoCompiler()
})

/** a → b → c, and d alone; c reads b's output. */
function diamond() {
  return compiler.compile([
    { id: 'a', tool: 'echo', args: { text: 'a' } },
    { id: 'b', tool: 'echo', args: { text: 'b' }, depends_on: ['a'] },
    { id: 'c', tool: 'echo', args: { text: { $ref: 'b.output.text' } } },
    { id: 'd', tool: 'echo', args: { text: 'd' } },
  ])
}

function statuses(run: RunState): Record<string, string> {
  return Object.fromEntries(run.status)
}

function installed(plan = diamond()): { run: RunState; reset: string[] } {
  const run = new RunState()
  const reset: string[] = []
  run.install(plan, 'plan', false, (stepId) => reset.push(stepId))
  return { run, reset }
}

describe('RunState', () => {
  it('should make the steps without dependencies ready when a plan is installed', () => {
    const { run, reset } = installed()
    expect(run.readySteps().map((step) => step.id)).toEqual(['a', 'd'])
    expect(statuses(run)).toEqual({ a: 'pending', b: 'pending', c: 'pending', d: 'pending' })
    expect(reset).toEqual(['a', 'b', 'c', 'd'])
    expect(run.readyTools()).toEqual(['echo'])
    expect(run.isComplete()).toBe(false)
  })

  it('should find a ready step by its call key, and no longer once it runs', () => {
    const { run } = installed()
    const key = run.ready.get('a')?.key as string
    expect(run.readyStepFor(key)?.id).toBe('a')
    run.start('a', key)
    expect(run.status.get('a')).toBe('running')
    expect(run.readyStepFor(key)).toBeUndefined()
    expect(run.ranKey('a')).toBe(key)
  })

  it('should hand out steps that make the same call in plan order, each once', () => {
    const same = { tool: 'echo', args: { text: 'x' } }
    const plan = compiler.compile([
      { id: 'p', ...same },
      { id: 'q', ...same },
      { id: 'r', ...same },
      { id: 's', tool: 'echo', args: { text: 'y' } },
    ])
    const { run } = installed(plan)
    const key = run.ready.get('p')?.key as string
    expect(run.ready.get('r')?.key).toBe(key)
    run.start('q', key)
    expect(run.readyStepFor(key)?.id).toBe('p')
    run.start('p', key)
    expect(run.readyStepFor(key)?.id).toBe('r')
    run.start('r', key)
    expect(run.readyStepFor(key)).toBeUndefined()
    expect(run.readyStepFor(run.ready.get('s')?.key as string)?.id).toBe('s')
  })

  it('should make a dependent ready when its dependencies are done, with references resolved', () => {
    const { run } = installed()
    run.start('a', 'ka')
    expect(run.complete('a', 'out a')).toBe(true)
    expect(run.readySteps().map((step) => step.id)).toEqual(['b', 'd'])
    run.start('b', 'kb')
    run.complete('b', { text: 'from b' })
    expect(run.ready.get('c')?.args).toEqual({ text: 'from b' })
    expect(run.complete('b', 'again')).toBe(false)
  })

  it('should keep an unresolvable reference as the ready entry issue', () => {
    const { run } = installed()
    run.start('a', 'ka')
    run.complete('a', 'out a')
    run.start('b', 'kb')
    run.complete('b', { other: 1 })
    expect(run.ready.get('c')?.issue?.code).toBe('invalid_reference')
  })

  it('should skip every step that depends on a failed step, and then be complete', () => {
    const { run } = installed()
    run.start('a', 'ka')
    expect(run.fail('a')).toBe('running')
    expect(statuses(run)).toEqual({ a: 'failed', b: 'skipped', c: 'skipped', d: 'pending' })
    expect(run.fail('a')).toBeUndefined()
    run.start('d', 'kd')
    run.complete('d', null)
    expect(run.isComplete()).toBe(true)
  })

  it('should return a running step to ready on release, and refuse to release another', () => {
    const { run } = installed()
    const key = run.ready.get('a')?.key as string
    run.start('a', key)
    expect(run.release('a')).toBe(true)
    expect(run.status.get('a')).toBe('pending')
    expect(run.readyStepFor(key)?.id).toBe('a')
    expect(run.ranKey('a')).toBeUndefined()
    expect(run.release('a')).toBe(false)
    expect(run.release('nope')).toBe(false)
  })

  it('should carry a done step into a new plan only when it makes the same call', () => {
    const { run } = installed()
    run.start('a', 'ka')
    run.complete('a', 'out a')
    const reset: string[] = []
    const next = compiler.compile([
      { id: 'a', tool: 'echo', args: { text: 'a' } },
      { id: 'd', tool: 'echo', args: { text: 'changed' } },
    ])
    run.install(next, 'turn', false, (stepId) => reset.push(stepId))
    expect(run.mode).toBe('turn')
    expect(statuses(run)).toMatchObject({ a: 'done', d: 'pending' })
    expect(reset).toEqual(['d'])
    expect(run.outputs.get('a')).toBe('out a')
  })

  it('should give the key a step ran with, planned or resolved, and keep it when carried', () => {
    const { run } = installed()
    const planned = run.ready.get('a')?.key as string
    run.start('a', planned)
    run.complete('a', 'out a')
    run.start('b', run.ready.get('b')?.key as string)
    run.complete('b', { text: 'from b' })
    const resolved = run.ready.get('c')?.key as string
    run.start('c', resolved)
    expect([run.ranKey('a'), run.ranKey('c')]).toEqual([
      callKey('echo', canonicalJson({ text: 'a' })),
      callKey('echo', canonicalJson({ text: 'from b' })),
    ])
    expect([run.ranPlannedCall('a'), run.ranPlannedCall('c')]).toEqual([true, false])
    run.install(
      compiler.compile([{ id: 'a', tool: 'echo', args: { text: 'a' } }]),
      'plan',
      false,
      () => {},
    )
    expect([run.ranKey('a'), run.ranKey('c')]).toEqual([planned, resolved])
  })

  it('should mark restored running steps as interrupted', () => {
    const plan = diamond()
    const run = new RunState()
    run.status.set('a', 'running')
    run.install(plan, 'plan', true, () => {})
    run.markRestored()
    expect(run.interruptedSteps()).toEqual(['a'])
    expect(run.ranKey('a')).toBe(callKey('echo', canonicalJson({ text: 'a' })))
    expect(run.readySteps().map((step) => step.id)).toEqual(['d'])
  })

  it('should check the arguments of a step once, when it becomes ready', () => {
    const checked: string[] = []
    const run = new RunState((step) => {
      checked.push(step.id)
      return []
    })
    run.install(diamond(), 'plan', false, () => {})
    expect(checked).toEqual(['a', 'd'])
    run.start('a', 'ka')
    run.complete('a', 'x')
    expect(checked).toEqual(['a', 'd', 'b'])
  })
})
