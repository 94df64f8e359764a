import { PlanError } from '@plan/shell/common'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { untrustedFlowStateSchema } from '../schema/untrusted-flow-state-schema.js'
import type { TrustLabel, UntrustedFlowState } from '../types/untrusted-flow.js'
import { readUntrustedFlowState } from './read-untrusted-flow-state.js'
import UNTRUSTED_FLOW_STATE_JSON_SCHEMA from './untrusted-flow-state-schema.generated.json' with {
  type: 'json',
}

// The hand-written reader that the schema replaced, kept as the oracle of its decisions.
function invalid(): never {
  throw new PlanError('Invalid guard state: flow.', {
    issues: [
      { code: 'state_corrupt', message: 'The guard state has an invalid flow.', path: ['flow'] },
    ],
  })
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function handWrittenReader(value: unknown): UntrustedFlowState {
  if (!isRecord(value) || !isRecord(value.labels) || !isRecord(value.seen)) invalid()
  const labels: Record<string, TrustLabel> = Object.create(null)
  for (const [id, label] of Object.entries(value.labels)) {
    if (label !== 'trusted' && label !== 'untrusted') invalid()
    labels[id] = label
  }
  const seen: Record<string, number> = Object.create(null)
  for (const [id, count] of Object.entries(value.seen)) {
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) invalid()
    seen[id] = count
  }
  const text = value.text
  if (!isRecord(text) || !Array.isArray(text.outputs)) invalid()
  const outputs = text.outputs.map((output: unknown) => {
    if (
      !isRecord(output) ||
      typeof output.stepId !== 'string' ||
      !Array.isArray(output.texts) ||
      !output.texts.every((entry): entry is string => typeof entry === 'string')
    )
      invalid()
    return { stepId: output.stepId, texts: output.texts }
  })
  const saturatedAt = text.saturatedAt ?? null
  if (
    saturatedAt !== null &&
    (typeof saturatedAt !== 'number' || !Number.isSafeInteger(saturatedAt) || saturatedAt < 0)
  )
    invalid()
  for (const count of Object.values(seen)) if (count > outputs.length) invalid()
  const sensitive = value.sensitive ?? false
  const acted = value.acted ?? false
  if (typeof sensitive !== 'boolean' || typeof acted !== 'boolean') invalid()
  const questions = value.questions ?? 0
  if (typeof questions !== 'number' || !Number.isSafeInteger(questions) || questions < 0) invalid()
  return {
    labels,
    seen,
    text: { outputs, saturatedAt },
    sensitive,
    acted,
    sources: readSourceLists(value.sources),
    context: value.context === undefined ? [] : readStrings(value.context),
    files: readSourceLists(value.files),
    questions,
  }
}

function readStrings(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((entry): entry is string => typeof entry === 'string'))
    invalid()
  return value
}

/** A record of source lists (by step id or by file), null-prototype. */
function readSourceLists(value: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null)
  if (value === undefined) return out
  if (!isRecord(value)) invalid()
  for (const [key, list] of Object.entries(value)) out[key] = readStrings(list)
  return out
}

/** What a reader answers: the state, or the issue it throws. */
function outcome(read: (value: unknown) => UntrustedFlowState, value: unknown): unknown {
  try {
    return { state: read(value) }
  } catch (error) {
    if (!PlanError.isInstance(error)) throw error
    return { message: error.message, issues: error.issues }
  }
}

const minimal = { labels: {}, seen: {}, text: { outputs: [] } }

describe('readUntrustedFlowState', () => {
  it('should fill in absent flags, counts and lists', () => {
    expect(readUntrustedFlowState(minimal)).toEqual({
      labels: {},
      seen: {},
      text: { outputs: [], saturatedAt: null },
      sensitive: false,
      acted: false,
      sources: {},
      context: [],
      files: {},
      questions: 0,
    })
  })

  it('should keep a __proto__ key as data, in records without a prototype', () => {
    const state = readUntrustedFlowState(
      JSON.parse(
        '{"labels":{"__proto__":"untrusted"},"seen":{},"text":{"outputs":[]},"files":{"__proto__":["x"]}}',
      ),
    )
    expect(Object.getPrototypeOf(state.labels)).toBeNull()
    expect(Object.getPrototypeOf(state.files)).toBeNull()
    expect(Object.keys(state.labels)).toEqual(['__proto__'])
    expect(Object.entries(state.files ?? {})).toEqual([['__proto__', ['x']]])
  })

  it.each([
    ['no labels', { seen: {}, text: { outputs: [] } }],
    ['a label that is not a trust label', { ...minimal, labels: { a: 'maybe' } }],
    ['a negative count', { ...minimal, seen: { a: -1 } }],
    ['a step that saw more outputs than were recorded', { ...minimal, seen: { a: 1 } }],
    ['an output without texts', { ...minimal, text: { outputs: [{ stepId: 'a' }] } }],
    ['a fractional saturatedAt', { ...minimal, text: { outputs: [], saturatedAt: 0.5 } }],
    ['a null source list', { ...minimal, sources: null }],
    ['a context that is not a list of strings', { ...minimal, context: [1] }],
  ])('should refuse %s as state_corrupt at flow', (_, value) => {
    expect(outcome(readUntrustedFlowState, value)).toEqual({
      message: 'Invalid guard state: flow.',
      issues: [
        { code: 'state_corrupt', message: 'The guard state has an invalid flow.', path: ['flow'] },
      ],
    })
  })

  it('should decide every generated state as the hand-written reader did, with the same answer', () => {
    const junk = fc.constantFrom(undefined, null, '', -1, 0.5, 2 ** 60, [], {}, 'x', true)
    const maybe = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 12, arbitrary: valid }, junk)
    const id = fc.constantFrom('a', 'b', '__proto__', 'constructor', '')
    const count = maybe(fc.integer({ min: 0, max: 3 }))
    const strings = maybe(fc.array(maybe(fc.constantFrom('file:a', 'url:b')), { maxLength: 2 }))
    const lists = maybe(fc.dictionary(id, strings, { maxKeys: 2 }))
    const output = maybe(
      fc.record({ stepId: maybe(id), texts: strings, extra: junk }, { requiredKeys: [] }),
    )
    const state = fc.record(
      {
        labels: maybe(fc.dictionary(id, maybe(fc.constantFrom('trusted', 'untrusted')))),
        seen: maybe(fc.dictionary(id, count, { maxKeys: 2 })),
        text: maybe(
          fc.record(
            { outputs: maybe(fc.array(output, { maxLength: 3 })), saturatedAt: count },
            { requiredKeys: [] },
          ),
        ),
        sensitive: maybe(fc.boolean()),
        acted: maybe(fc.boolean()),
        sources: lists,
        context: strings,
        files: lists,
        questions: count,
        other: junk,
      },
      { requiredKeys: [] },
    )
    let accepted = 0
    fc.assert(
      fc.property(fc.oneof({ weight: 20, arbitrary: state }, junk), (value) => {
        const expected = outcome(handWrittenReader, value)
        expect(outcome(readUntrustedFlowState, value)).toEqual(expected)
        if (expected !== null && typeof expected === 'object' && 'state' in expected) accepted += 1
      }),
      { numRuns: 3000, seed: 38 },
    )
    // The generator must reach valid states often enough for the comparison to mean something.
    expect(accepted).toBeGreaterThan(100)
  })
})

describe('UNTRUSTED_FLOW_STATE_JSON_SCHEMA', () => {
  it('should be the JSON Schema of untrustedFlowStateSchema (run scripts/write-json-schemas.mjs when not)', () => {
    expect(UNTRUSTED_FLOW_STATE_JSON_SCHEMA).toEqual(
      z.toJSONSchema(untrustedFlowStateSchema, { io: 'input' }),
    )
  })
})
