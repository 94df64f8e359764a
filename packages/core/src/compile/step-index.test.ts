import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StepIndex } from './step-index.js'

describe('StepIndex', () => {
  it('should give the index of every added id and undefined for any other', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ maxLength: 12 }), { maxLength: 200 }),
        fc.string(),
        (ids, other) => {
          const index = new StepIndex(ids.length)
          for (const [position, id] of ids.entries()) index.addIfAbsent(id, position * 3)
          for (const [position, id] of ids.entries()) {
            expect(index.get(id)).toBe(position * 3)
            expect(index.position(id)).toBe(position)
          }
          if (!ids.includes(other)) {
            expect(index.get(other)).toBeUndefined()
            expect(index.position(other)).toBe(-1)
          }
          expect(index.size).toBe(ids.length)
          expect([...index.keys()]).toEqual(ids)
        },
      ),
    )
  })

  it('should answer as a Map of first indices, whatever size it was given', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom('s1', 's2', 'a', ''), fc.string({ maxLength: 5 })), {
          maxLength: 300,
        }),
        fc.nat(400),
        fc.nat(12),
        (ids, capacity, linearUpTo) => {
          const index = new StepIndex(capacity, linearUpTo)
          const reference = new Map<string, number>()
          for (const [position, id] of ids.entries()) {
            expect(index.addIfAbsent(id, position)).toBe(reference.get(id))
            if (!reference.has(id)) reference.set(id, position)
          }
          for (const id of [...ids, 'zz', 's3']) {
            expect(index.get(id)).toBe(reference.get(id))
            expect(index.getPrefix(`${id}.output`, id.length)).toBe(reference.get(id))
          }
          expect([...index.keys()]).toEqual([...reference.keys()])
          expect(index.size).toBe(reference.size)
        },
      ),
    )
  })

  it('should look up many ids at once as position does each', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 120 }),
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 60 }),
        fc.nat(60),
        (ids, others, capacity) => {
          const index = new StepIndex(capacity)
          const first = new Map<string, number>()
          for (const [position, id] of ids.entries()) {
            index.addIfAbsent(id, position)
            if (!first.has(id)) first.set(id, first.size)
          }
          const keys = [...others, ...ids, ...others]
          const out = new Int32Array(keys.length + 1).fill(7)
          index.positions(keys, keys.length, out)
          expect([...out]).toEqual([...keys.map((key) => first.get(key) ?? -1), 7])
        },
      ),
    )
  })

  it('should stay exact when it holds more ids than it was sized for', () => {
    const index = new StepIndex(4)
    for (let position = 0; position < 5_000; position += 1)
      index.addIfAbsent(`step_${position}`, position)
    expect(index.get('step_0')).toBe(0)
    expect(index.get('step_4999')).toBe(4999)
    expect(index.get('step_5000')).toBeUndefined()
    expect(index.position('step_4999')).toBe(4999)
    expect(index.position('step_5000')).toBe(-1)
    expect(index.addIfAbsent('step_10', 9)).toBe(10)
    expect(index.size).toBe(5_000)
  })

  it('should keep the first index of an id added twice', () => {
    const index = new StepIndex(8)
    expect(index.addIfAbsent('a', 0)).toBeUndefined()
    expect(index.addIfAbsent('a', 5)).toBe(0)
    expect(index.get('a')).toBe(0)
    expect(index.size).toBe(1)
    for (let position = 1; position < 100; position += 1)
      index.addIfAbsent(`s${position}`, position)
    expect(index.addIfAbsent('s50', 500)).toBe(50)
    expect(index.position('s50')).toBe(50)
    expect(index.size).toBe(100)
  })

  it('should not mistake an id for another with the same characters in a different string', () => {
    const index = new StepIndex(2)
    index.addIfAbsent(['a', 'b'].join(''), 7)
    expect(index.get(`${'a'}b`)).toBe(7)
    expect(index.get('ba')).toBeUndefined()
  })

  it('should look up an id at the start of a longer text as get does the cut id', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ maxLength: 6 }), { maxLength: 60 }),
        fc.string({ maxLength: 8 }),
        fc.string({ maxLength: 8 }),
        fc.nat(20),
        (ids, head, tail, linearUpTo) => {
          const index = new StepIndex(ids.length, linearUpTo)
          for (const [position, id] of ids.entries()) index.addIfAbsent(id, position * 3)
          for (const id of [...ids, head]) {
            const text = `${id}${tail}`
            expect(index.getPrefix(text, id.length)).toBe(index.get(id))
          }
        },
      ),
    )
  })

  it('should find an id by its prefix once colliding ids made it a Map', () => {
    const index = new StepIndex(4)
    for (let position = 0; position < 100; position += 1)
      index.addIfAbsent(`step_${position}`, position)
    expect(index.getPrefix('step_42.output.text', 7)).toBe(42)
    expect(index.getPrefix('step_420.output', 8)).toBeUndefined()
    expect(index.getPrefix('step_4', 6)).toBe(4)
  })
})
