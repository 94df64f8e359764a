import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StepValues } from './step-values.js'

const planOf = (ids: readonly string[]) =>
  [ids, new Map(ids.map((id, position) => [id, position]))] as const

describe('StepValues', () => {
  it('should keep values of the plan and of other ids, and iterate the others first', () => {
    const values = new StepValues<string>()
    values.set('old', 'done')
    values.place(...planOf(['a', 'b', 'c']))
    values.set('c', 'pending').set('a', 'running').set('extra', 'failed')
    expect(values.get('a')).toBe('running')
    expect(values.has('b')).toBe(false)
    expect(values.size).toBe(4)
    expect([...values]).toEqual([
      ['old', 'done'],
      ['extra', 'failed'],
      ['a', 'running'],
      ['c', 'pending'],
    ])
  })

  it('should delete values, and carry them over to the next plan by id', () => {
    const values = new StepValues<number>()
    values.place(...planOf(['a', 'b']))
    values.set('a', 1).set('b', 2)
    expect(values.delete('b')).toBe(true)
    expect(values.delete('b')).toBe(false)
    values.place(...planOf(['c', 'a']))
    expect(values.get('a')).toBe(1)
    expect(Object.fromEntries(values)).toEqual({ a: 1 })
    values.set('b', 3)
    expect([...values.keys()]).toEqual(['b', 'a'])
  })
})

/** The meaning of `place`: every value set again under the new plan, in iteration order. */
class Reference {
  others = new Map<string, number>()
  plan: readonly string[] = []
  values = new Map<string, number>()

  entries(): [string, number][] {
    const planned = this.plan.flatMap((id): [string, number][] => {
      const value = this.values.get(id)
      return value === undefined ? [] : [[id, value]]
    })
    return [...this.others, ...planned]
  }

  set(id: string, value: number): void {
    if (this.plan.includes(id)) this.values.set(id, value)
    else this.others.set(id, value)
  }

  delete(id: string): void {
    if (this.plan.includes(id)) this.values.delete(id)
    else this.others.delete(id)
  }

  place(ids: readonly string[]): void {
    const entries = this.entries()
    this.plan = ids
    this.values = new Map()
    this.others = new Map()
    for (const [id, value] of entries) this.set(id, value)
  }
}

describe('StepValues.place', () => {
  const id = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f')
  const operation = fc.oneof(
    fc.record({ set: id, value: fc.integer() }),
    fc.record({ delete: id }),
    fc.record({ place: fc.uniqueArray(id, { maxLength: 4 }) }),
  )

  it('should give what setting every value again under the new plan gives', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 40 }), (operations) => {
        const values = new StepValues<number>()
        const reference = new Reference()
        for (const step of operations) {
          if ('set' in step) {
            values.set(step.set, step.value)
            reference.set(step.set, step.value)
          } else if ('delete' in step) {
            values.delete(step.delete)
            reference.delete(step.delete)
          } else {
            values.place(...planOf(step.place))
            reference.place(step.place)
          }
          expect([...values]).toEqual(reference.entries())
          expect(values.size).toBe(reference.entries().length)
        }
      }),
      { numRuns: 500 },
    )
  })
})
