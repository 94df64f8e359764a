import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readGuardState } from '../guard/read-guard-state.js'
import { guardStateSchema } from './guard-state-schema.js'

const VALID = {
  version: 1,
  plan: null,
  status: { a: 'done' },
  outputs: {},
  calls: 1,
  replans: 0,
  callsPerTool: { echo: 1 },
  identicalCalls: {},
  seenPlanHashes: ['h'],
  startedAt: 5,
  stopped: null,
}

// Outputs and flow are checked beyond the schema (JSON data; the flow tracker's reader).
const FIELDS = Object.keys(guardStateSchema.unwrap().shape).filter(
  (field) => field !== 'outputs' && field !== 'flow',
)

function readerAccepts(state: unknown): boolean {
  try {
    readGuardState(state)
    return true
  } catch {
    return false
  }
}

describe('guardStateSchema', () => {
  it('should accept and refuse the same states as the guard that reads them', () => {
    expect(readerAccepts(VALID)).toBe(true)
    const value = fc.oneof(
      fc.anything(),
      fc.integer(),
      fc.double(),
      fc.constantFrom('plan', 'turn', 'done', 'skipped', null, undefined),
      fc.dictionary(fc.string(), fc.oneof(fc.integer(), fc.constantFrom('done', 'running'))),
      fc.array(fc.oneof(fc.string(), fc.integer())),
    )
    fc.assert(
      fc.property(fc.constantFrom(...FIELDS), value, fc.boolean(), (field, replacement, drop) => {
        const state: Record<string, unknown> = { ...VALID }
        if (drop) delete state[field]
        else state[field] = replacement
        expect(readerAccepts(state)).toBe(guardStateSchema.safeParse(state).success)
      }),
      { numRuns: 2000 },
    )
  }, 60_000)
})
