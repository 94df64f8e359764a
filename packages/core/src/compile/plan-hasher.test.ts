import { createHash } from 'node:crypto'
import { canonicalJson } from '@plan/json'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CompiledStep } from '../types/compiled-plan.js'
import { hashSourceOf } from './__fixtures__/hash-source-of.js'
import { PlanHasher } from './plan-hasher.js'

/** The hash contract: SHA-256 (hex, node:crypto) of the canonical JSON of the plan's hashed form. */
function referenceDigest(steps: readonly CompiledStep[]): string {
  const hashed = steps.map((step) => ({
    id: step.id,
    tool: step.tool,
    args: step.args,
    dependsOn: [...new Set(step.dependsOn)].sort(),
  }))
  return createHash('sha256')
    .update(canonicalJson({ version: 1, steps: hashed }))
    .digest('hex')
}

const stepId = fc.stringMatching(/^[A-Za-z0-9_-]{1,6}$/)
const awkwardText = fc.oneof(
  fc.string({ maxLength: 8, unit: 'binary' }),
  fc.constantFrom(
    'a "quoted" b',
    'back\\slash',
    'é\u2028\u{1F600}',
    '\ud800',
    '\udfff x',
    '\u0000\u001f',
  ),
)
const awkwardKey = fc.oneof(
  awkwardText,
  fc.constantFrom(
    '__proto__',
    '__proto_',
    'constructorX',
    'toJSON',
    'toString',
    'valueOf',
    '0',
    '10',
    '2',
    '$ref',
  ),
)
const argValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    awkwardText,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(awkwardKey, tie('value'), { maxKeys: 4 }),
  ),
}))

/** Arguments as the compiler holds them: frozen, keys inserted in canonical order at every level. */
function compiledArgs(value: Record<string, unknown>): CompiledStep['args'] {
  const deepFreeze = (item: unknown): unknown => {
    if (typeof item === 'object' && item !== null) {
      for (const member of Object.values(item)) deepFreeze(member)
      Object.freeze(item)
    }
    return item
  }
  return deepFreeze(JSON.parse(canonicalJson(value))) as CompiledStep['args']
}

const compiledStep = fc
  .record({
    id: stepId,
    tool: fc.oneof(stepId, awkwardText),
    args: fc.dictionary(awkwardKey, argValue.value, { maxKeys: 5 }),
    dependsOn: fc.array(stepId, { maxLength: 12 }),
  })
  .map(({ id, tool, args, dependsOn }) =>
    Object.freeze({
      id,
      index: 0,
      tool,
      args: compiledArgs(args),
      dependsOn: Object.freeze(dependsOn),
      references: Object.freeze([]),
      level: 0,
    }),
  )

describe('PlanHasher', () => {
  it('should digest the canonical JSON of any steps as node:crypto does, at any plan size', () => {
    fc.assert(
      fc.property(
        fc.array(compiledStep, { maxLength: 6 }),
        fc.constantFrom(0, 1, 511, 512, 513, 1100),
        (sample, size) => {
          const steps =
            sample.length === 0
              ? sample
              : Array.from(
                  { length: size },
                  (_, index) => sample[index % sample.length] as CompiledStep,
                )
          const hasher = new PlanHasher(hashSourceOf(steps))
          expect(hasher.digest()).toBe(referenceDigest(steps))
          expect(hasher.digest()).toBe(referenceDigest(steps))
        },
      ),
      { numRuns: 150 },
    )
  })

  it('should digest the same text with a toJSON on Object.prototype or Array.prototype', () => {
    fc.assert(
      fc.property(fc.array(compiledStep, { minLength: 1, maxLength: 4 }), (steps) => {
        const expected = referenceDigest(steps)
        for (const prototype of [Object.prototype, Array.prototype]) {
          Object.defineProperty(prototype, 'toJSON', { value: () => 'same', configurable: true })
          try {
            expect(new PlanHasher(hashSourceOf(steps)).digest()).toBe(expected)
          } finally {
            delete (prototype as { toJSON?: unknown }).toJSON
          }
        }
      }),
      { numRuns: 40 },
    )
  })

  it('should digest the same once detached, its text kept or hashed at once, at any size', () => {
    fc.assert(
      fc.property(
        fc.array(compiledStep, { maxLength: 6 }),
        fc.constantFrom(0, 1, 2, 511, 512, 513),
        fc.constantFrom(0, 40, 200, 4096),
        (sample, size, maxLength) => {
          const steps =
            sample.length === 0
              ? sample
              : Array.from(
                  { length: size },
                  (_, index) => sample[index % sample.length] as CompiledStep,
                )
          const hasher = new PlanHasher(hashSourceOf(steps))
          const detached = hasher.detach(maxLength)
          expect(detached).toBe(steps.length <= 512)
          expect(hasher.keptLength).toBeLessThanOrEqual(maxLength)
          expect(hasher.hash).toBe(referenceDigest(steps))
          expect(hasher.keptLength).toBe(0)
          expect(hasher.detach(maxLength)).toBe(true)
          expect(hasher.digest()).toBe(referenceDigest(steps))
        },
      ),
      { numRuns: 150 },
    )
  })

  it('should keep the text of a short plan until its digest, and hash a longer one at once', () => {
    const steps = [
      Object.freeze({
        id: 'call-1',
        index: 0,
        tool: 'read_text_file',
        args: Object.freeze({ path: '/srv/repo/README.md' }),
        dependsOn: Object.freeze([]),
        references: Object.freeze([]),
        level: 0,
      }),
    ]
    const text =
      '{"steps":[{"args":{"path":"/srv/repo/README.md"},"dependsOn":[],"id":"call-1","tool":"read_text_file"}],"version":1}'
    const kept = new PlanHasher(hashSourceOf(steps))
    expect(kept.detach(text.length)).toBe(true)
    expect(kept.keptLength).toBe(text.length)
    const hashedAtOnce = new PlanHasher(hashSourceOf(steps))
    expect(hashedAtOnce.detach(text.length - 1)).toBe(true)
    expect(hashedAtOnce.keptLength).toBe(0)
    expect(kept.digest()).toBe(createHash('sha256').update(text).digest('hex'))
    expect(hashedAtOnce.digest()).toBe(kept.digest())
  })
})
