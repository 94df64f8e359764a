import { PlanError } from '@plan/shell/common'
import { describe, expect, it } from 'vitest'
import { RunningCalls } from './running-calls.js'

describe('RunningCalls', () => {
  it('should settle with the value of a synchronous or asynchronous tool', async () => {
    const calls = new RunningCalls(undefined)
    await expect(calls.call(() => 1, {}, 'a')).resolves.toEqual({ ok: true, value: 1 })
    await expect(calls.call(async () => 'x', {}, 'b')).resolves.toEqual({ ok: true, value: 'x' })
  })

  it('should settle with what a tool throws or rejects with', async () => {
    const calls = new RunningCalls(undefined)
    const thrown = new Error('thrown')
    await expect(
      calls.call(
        () => {
          throw thrown
        },
        {},
        'a',
      ),
    ).resolves.toEqual({ ok: false, error: thrown })
    await expect(calls.call(() => Promise.reject(thrown), {}, 'b')).resolves.toEqual({
      ok: false,
      error: thrown,
    })
  })

  it('should time a call out once, abort its signal and ignore its late result', async () => {
    const calls = new RunningCalls(5)
    let signal: AbortSignal | undefined
    let finish: (value: unknown) => void = () => {}
    const outcome = await calls.call(
      (_args, context) => {
        signal = context.signal
        return new Promise((resolve) => {
          finish = resolve
        })
      },
      {},
      'slow',
    )
    finish('late')
    expect(outcome.ok).toBe(false)
    expect(outcome.ok === false && outcome.issue?.code).toBe('step_timeout')
    expect(signal?.aborted).toBe(true)
    expect(PlanError.isInstance(signal?.reason)).toBe(true)
  }, 60_000)

  it('should abort every call in flight', async () => {
    const calls = new RunningCalls(60_000)
    const signals: AbortSignal[] = []
    const hang = (_args: unknown, context: { signal: AbortSignal }) => {
      signals.push(context.signal)
      return new Promise(() => {})
    }
    calls.call(hang, {}, 'a')
    calls.call(hang, {}, 'b')
    const reason = new PlanError('stop', { code: 'aborted' })
    calls.abortAll(reason)
    expect(signals.map((signal) => signal.reason)).toEqual([reason, reason])
  })

  it('should abort the calls in flight in the order they started, and no finished one', async () => {
    const calls = new RunningCalls(undefined)
    const aborted: string[] = []
    const hang = (_args: unknown, context: { signal: AbortSignal; stepId: string }) => {
      context.signal.addEventListener('abort', () => aborted.push(context.stepId))
      return new Promise(() => {})
    }
    await calls.call(() => 'done', {}, 'first')
    calls.call(hang, {}, 'b')
    await calls.call(() => 'done', {}, 'second')
    calls.call(hang, {}, 'c')
    calls.call(hang, {}, 'd')
    calls.abortAll(new PlanError('stop', { code: 'aborted' }))
    calls.abortAll(new PlanError('again', { code: 'aborted' }))
    expect(aborted).toEqual(['b', 'c', 'd'])
  })
})
