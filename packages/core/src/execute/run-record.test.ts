import { describe, expect, it } from 'vitest'
import { runIssue } from '../util/run-issue.js'
import { RunRecord } from './run-record.js'

describe('RunRecord', () => {
  it('should be completed until a failure is noted', () => {
    expect(new RunRecord().status()).toBe('completed')
  })

  it('should rank aborted over denied over failed, and keep the first reason', () => {
    const record = new RunRecord()
    const first = runIssue('step_failed', 'first', undefined, 'a')
    record.note('failed', first)
    expect(record.status()).toBe('failed')
    record.note('denied', runIssue('call_not_in_plan', 'second', undefined, 'b'))
    expect(record.status()).toBe('denied')
    record.note('aborted')
    expect(record.status()).toBe('aborted')
    expect(record.reason).toBe(first)
  })

  it('should list the steps whose tool was called in the order they ended', () => {
    const record = new RunRecord()
    const a = { attempts: 1 }
    const b = { attempts: 2 }
    record.settle('a', a)
    record.settle('b', b)
    record.settle('c', { status: 'skipped', attempts: 0 })
    record.ended('b', b, 'failed', 20)
    record.ended('a', a, 'done', 30)
    expect(record.order).toEqual(['b', 'a'])
    expect(record.steps.get('a')).toEqual({ attempts: 1, status: 'done', endedAt: 30 })
  })
})
