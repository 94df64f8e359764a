import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyChanges, diffStates } from './run-state-changes.js'

const json = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown)
const objects = fc.dictionary(
  fc.constantFrom('status', 'outputs', 'calls', '__proto__', 'a', 'b'),
  fc.oneof(
    json,
    fc.array(fc.constantFrom(1, 'x', null), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 3 }), json, { maxKeys: 4 }),
  ),
)

describe('diffStates', () => {
  it('should give changes that turn the first state into the second', () => {
    fc.assert(
      fc.property(objects, objects, (before, after) => {
        const changes = diffStates(before, after)
        const applied = applyChanges(structuredClone(before), JSON.parse(JSON.stringify(changes)))
        expect(JSON.parse(JSON.stringify(applied))).toEqual(JSON.parse(JSON.stringify(after)))
      }),
    )
  })

  it('should append what a list that only grew gained', () => {
    const before = { flow: { outputs: ['a', 'b'] } }
    const after = { flow: { outputs: ['a', 'b', 'c'] } }
    const changes = diffStates(before, after)
    expect(changes).toEqual({ set: [], delete: [], append: [[['flow', 'outputs'], ['c']]] })
    expect(applyChanges(structuredClone(before), changes)).toEqual(after)
    // A list that changed otherwise is set whole.
    expect(diffStates(before, { flow: { outputs: ['z', 'b', 'c'] } }).set).toEqual([
      [
        ['flow', 'outputs'],
        ['z', 'b', 'c'],
      ],
    ])
  })

  it('should name only what changed, however large the state', () => {
    const status = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`s${i}`, 'done']))
    const before = { guard: { status: { ...status, s999: 'running' }, calls: 999 }, version: 1 }
    const after = { guard: { status: { ...status }, calls: 1000 }, version: 1 }
    expect(diffStates(before, after)).toEqual({
      set: [
        [['guard', 'status', 's999'], 'done'],
        [['guard', 'calls'], 1000],
      ],
      delete: [],
    })
  })
})
