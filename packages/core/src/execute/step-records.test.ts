import { describe, expect, it } from 'vitest'
import { StepRecords } from './step-records.js'

function placed(): StepRecords {
  const records = new StepRecords()
  records.place(
    ['a', 'b'],
    new Map([
      ['a', 0],
      ['b', 1],
    ]),
  )
  return records
}

describe('StepRecords', () => {
  it('should give a compacted done record back with the same fields in the same order', () => {
    const records = placed()
    const record = {
      attempts: 1,
      startedAt: 5,
      output: { x: [1] },
      status: 'done' as const,
      endedAt: 9,
    }
    records.set('a', { ...record })
    records.compact('a', records.get('a') ?? { attempts: 0 })
    expect(JSON.stringify(records.get('a'))).toBe(JSON.stringify(record))
    expect([...records.keys()]).toEqual(['a'])
  })

  it('should keep a record with issues or an error as the object it was given', () => {
    const records = placed()
    const failed = {
      attempts: 2,
      startedAt: 1,
      output: null,
      status: 'done' as const,
      endedAt: 3,
      error: 'x',
    }
    records.set('b', failed)
    records.compact('b', failed)
    expect(records.get('b')).toBe(failed)
  })

  it('should keep a record of a step outside the plan as an object', () => {
    const records = placed()
    const other = { attempts: 1, startedAt: 1, output: 1, status: 'done' as const, endedAt: 2 }
    records.set('z', other)
    records.compact('z', other)
    expect(records.get('z')).toBe(other)
    expect(records.has('z')).toBe(true)
  })
})
