import { describe, expect, it } from 'vitest'
import { stepsView } from '../compile/build-compiled-plan.js'
import type { CompiledStep } from '../types/compiled-plan.js'
import { StepGraph } from './step-graph.js'
import { StepScheduler } from './step-scheduler.js'

/** A graph from `id: dependencies` pairs, in plan order, with priorities given or all 1. */
function graphOf(
  edges: Record<string, readonly string[]>,
  priority: Record<string, number> = {},
): StepGraph {
  const ids = Object.keys(edges)
  const steps = ids.map(
    (id, index): CompiledStep => ({
      id,
      index,
      tool: 'work',
      args: {},
      dependsOn: edges[id] ?? [],
      references: [],
      level: 0,
    }),
  )
  return new StepGraph(
    stepsView(steps),
    ids,
    Int32Array.from(ids, (id) => priority[id] ?? 1),
  )
}

/** A fake step: records when it starts, and ends when the test says so. */
function fakeSteps() {
  const started: string[] = []
  const finishers = new Map<string, () => void>()
  const launch = (stepId: string, launched: () => void) =>
    new Promise<void>((resolve) => {
      started.push(stepId)
      launched()
      finishers.set(stepId, resolve)
    })
  const end = async (stepId: string) => {
    finishers.get(stepId)?.()
    await new Promise((resolve) => setImmediate(resolve))
  }
  return { started, launch, end }
}

const never = () => {
  throw new Error('unexpected')
}

describe('StepScheduler', () => {
  it('should start ready steps by priority, then plan order, up to the concurrency', async () => {
    const graph = graphOf({ a: [], b: [], c: [], d: [] }, { a: 1, b: 3, c: 2, d: 3 })
    const steps = fakeSteps()
    const scheduler = new StepScheduler(graph, {
      concurrency: 2,
      launch: steps.launch,
      onIdle: () => {},
      onError: never,
    })
    for (const id of ['a', 'b', 'c', 'd']) scheduler.ready(id)
    scheduler.pump()
    await new Promise((resolve) => setImmediate(resolve))
    expect(steps.started).toEqual(['b', 'd'])
    await steps.end('b')
    expect(steps.started).toEqual(['b', 'd', 'c'])
    await steps.end('d')
    expect(steps.started).toEqual(['b', 'd', 'c', 'a'])
  })

  it('should start a step only when its last dependency completes, and report idle at the end', async () => {
    const graph = graphOf({ a: [], b: [], c: ['a', 'b'] })
    const steps = fakeSteps()
    let idle = 0
    const scheduler = new StepScheduler(graph, {
      concurrency: Number.POSITIVE_INFINITY,
      launch: (stepId, launched) => {
        const running = steps.launch(stepId, launched)
        return running.then(() => scheduler.completed(stepId))
      },
      onIdle: () => {
        idle += 1
      },
      onError: never,
    })
    scheduler.ready('a')
    scheduler.ready('b')
    scheduler.wait('c', 2)
    scheduler.pump()
    await new Promise((resolve) => setImmediate(resolve))
    expect(steps.started).toEqual(['a', 'b'])
    await steps.end('a')
    expect(steps.started).toEqual(['a', 'b'])
    expect(scheduler.isWaiting('c')).toBe(true)
    await steps.end('b')
    expect(steps.started).toEqual(['a', 'b', 'c'])
    expect(idle).toBe(0)
    await steps.end('c')
    expect(idle).toBe(1)
  })

  it('should start a dependent when its dependency completes, before that launch settles', () => {
    const graph = graphOf({ a: [], b: ['a'] })
    const started: string[] = []
    const scheduler = new StepScheduler(graph, {
      concurrency: Number.POSITIVE_INFINITY,
      launch: (stepId, launched) => {
        started.push(stepId)
        launched()
        return new Promise<void>(() => {})
      },
      onIdle: never,
      onError: never,
    })
    scheduler.ready('a')
    scheduler.wait('b', 1)
    scheduler.pump()
    expect(started).toEqual(['a'])
    scheduler.completed('a')
    expect(started).toEqual(['a', 'b'])
  })

  it('should keep the slot of the finished step until its launch settles', async () => {
    const graph = graphOf({ a: [], b: ['a'] })
    const started: string[] = []
    let settle: () => void = () => {}
    const scheduler = new StepScheduler(graph, {
      concurrency: 1,
      launch: (stepId, launched) => {
        started.push(stepId)
        launched()
        return new Promise<void>((resolve) => {
          settle = resolve
        })
      },
      onIdle: () => {},
      onError: never,
    })
    scheduler.ready('a')
    scheduler.wait('b', 1)
    scheduler.pump()
    scheduler.completed('a')
    expect(started).toEqual(['a'])
    settle()
    await new Promise((resolve) => setImmediate(resolve))
    expect(started).toEqual(['a', 'b'])
  })

  it('should let the most critical step call its tool before the next step starts', async () => {
    const graph = graphOf({ a: [], b: [], c: [] }, { a: 1, b: 5, c: 2 })
    const log: string[] = []
    const scheduler = new StepScheduler(graph, {
      concurrency: Number.POSITIVE_INFINITY,
      launch: async (stepId, launched) => {
        log.push(`authorize ${stepId}`)
        await Promise.resolve()
        await Promise.resolve()
        log.push(`call ${stepId}`)
        launched()
        await new Promise(() => {})
      },
      onIdle: () => {},
      onError: never,
    })
    for (const id of ['a', 'b', 'c']) scheduler.ready(id)
    scheduler.pump()
    await new Promise((resolve) => setImmediate(resolve))
    expect(log).toEqual(['authorize b', 'call b', 'authorize c', 'call c', 'authorize a', 'call a'])
  })

  it('should not hold the next step back while a start awaits I/O', async () => {
    const graph = graphOf({ a: [], b: [] }, { a: 2, b: 1 })
    const started: string[] = []
    const deferred: (() => void)[] = []
    const scheduler = new StepScheduler(graph, {
      concurrency: Number.POSITIVE_INFINITY,
      launch: (stepId) => {
        started.push(stepId)
        // Never calls launched: its start is waiting for I/O.
        return new Promise(() => {})
      },
      onIdle: () => {},
      onError: never,
      defer: (callback) => deferred.push(callback),
    })
    scheduler.ready('a')
    scheduler.ready('b')
    scheduler.pump()
    expect(started).toEqual(['a'])
    deferred.shift()?.()
    expect(started).toEqual(['a', 'b'])
    expect(scheduler.active).toBe(2)
  })

  it('should skip forgotten steps and start nothing after stop', async () => {
    const graph = graphOf({ a: [], b: ['a'], c: ['a'] })
    const steps = fakeSteps()
    const scheduler = new StepScheduler(graph, {
      concurrency: 4,
      launch: (stepId, launched) =>
        steps.launch(stepId, launched).then(() => scheduler.completed(stepId)),
      onIdle: () => {},
      onError: never,
    })
    scheduler.ready('a')
    scheduler.wait('b', 1)
    scheduler.wait('c', 1)
    scheduler.forget('c')
    scheduler.pump()
    await steps.end('a')
    expect(steps.started).toEqual(['a', 'b'])
    scheduler.stop()
    scheduler.ready('c')
    scheduler.pump()
    expect(scheduler.queued).toBe(0)
    expect(steps.started).toEqual(['a', 'b'])
  })

  it('should report a launcher that throws or rejects', async () => {
    const graph = graphOf({ a: [], b: [] })
    const errors: string[] = []
    const scheduler = new StepScheduler(graph, {
      concurrency: 4,
      launch: (stepId) => {
        if (stepId === 'a') throw new Error('thrown')
        return Promise.reject(new Error('rejected'))
      },
      onIdle: () => {},
      onError: (stepId, error) => errors.push(`${stepId}: ${(error as Error).message}`),
    })
    scheduler.ready('a')
    scheduler.ready('b')
    scheduler.pump()
    await new Promise((resolve) => setImmediate(resolve))
    expect(errors).toEqual(['a: thrown', 'b: rejected'])
    expect(scheduler.active).toBe(0)
  })
})
