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
