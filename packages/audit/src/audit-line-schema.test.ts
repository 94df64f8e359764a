import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AUDIT_GENESIS } from './audit-key.js'
import { auditLineSchema } from './audit-line-schema.js'

const line = { seq: 1, time: '2026-01-01T00:00:00.000Z', prev: AUDIT_GENESIS, event: { type: 'x' } }

describe('auditLineSchema', () => {
  it('should accept a record, keeping keys it does not know', () => {
    const parsed = auditLineSchema.parse({ ...line, extra: 1, event: { type: 'x', tool: 't' } })
    expect(parsed).toEqual({ ...line, extra: 1, event: { type: 'x', tool: 't' } })
  })

  it('should refuse a fractional or unsafe number, a short hash and an event without a type', () => {
    expect(auditLineSchema.safeParse({ ...line, seq: 1.5 }).success).toBe(false)
    expect(auditLineSchema.safeParse({ ...line, seq: 2 ** 53 }).success).toBe(false)
    expect(auditLineSchema.safeParse({ ...line, prev: 'abc' }).success).toBe(false)
    expect(auditLineSchema.safeParse({ ...line, prev: 'A'.repeat(64) }).success).toBe(false)
    expect(auditLineSchema.safeParse({ ...line, event: {} }).success).toBe(false)
    expect(auditLineSchema.safeParse([line]).success).toBe(false)
  })

  it('should give a JSON Schema that requires the four keys', () => {
    const schema = z.toJSONSchema(auditLineSchema) as { required?: string[] }
    expect(schema.required?.sort()).toEqual(['event', 'prev', 'seq', 'time'])
  })
})
