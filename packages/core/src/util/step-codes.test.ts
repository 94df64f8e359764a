import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StepCodes } from './step-codes.js'
import { StepValues } from './step-values.js'

const VALUES = ['pending', 'running', 'done'] as const
type Value = (typeof VALUES)[number]

const planOf = (ids: readonly string[]) =>
  [ids, new Map(ids.map((id, position) => [id, position]))] as const

describe('StepCodes', () => {
  it('should keep values of the plan and of other ids, and iterate the others first', () => {
    const codes = new StepCodes<Value>(VALUES)
    codes.set('old', 'done')
    codes.place(...planOf(['a', 'b', 'c']))
    codes.set('c', 'pending').set('a', 'running').set('extra', 'done')
    expect(codes.get('a')).toBe('running')
    expect(codes.has('b')).toBe(false)
    expect(codes.size).toBe(4)
    expect(Object.fromEntries(codes)).toEqual({
      old: 'done',
      extra: 'done',
      a: 'running',
      c: 'pending',
    })
    expect([...codes.keys()]).toEqual(['old', 'extra', 'a', 'c'])
  })

  it('should refuse a value that is not of its list', () => {
    const codes = new StepCodes<Value>(VALUES)
    codes.place(...planOf(['a']))
    expect(() => codes.set('a', 'skipped' as Value)).toThrow(RangeError)
    expect(codes.has('a')).toBe(false)
  })
})

describe('StepCodes against StepValues', () => {
  const id = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f')
  const operation = fc.oneof(
    fc.record({ set: id, value: fc.constantFrom(...VALUES) }),
    fc.record({ delete: id }),
    fc.record({ place: fc.uniqueArray(id, { maxLength: 4 }) }),
  )

  it('should answer, iterate and count as StepValues does', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 40 }), (operations) => {
        const codes = new StepCodes<Value>(VALUES)
        const values = new StepValues<Value>()
        for (const step of operations) {
          if ('set' in step) {
            codes.set(step.set, step.value)
            values.set(step.set, step.value)
          } else if ('delete' in step) {
            expect(codes.delete(step.delete)).toBe(values.delete(step.delete))
          } else {
            codes.place(...planOf(step.place))
            values.place(...planOf(step.place))
          }
          expect([...codes]).toEqual([...values])
          expect(codes.size).toBe(values.size)
          for (const key of ['a', 'b', 'z']) expect(codes.get(key)).toBe(values.get(key))
        }
      }),
      { numRuns: 500 },
    )
  })
})
