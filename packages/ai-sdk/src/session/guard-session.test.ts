import { describe, expect, it } from 'vitest'
import { guardFixture } from '../test/guard-fixture.js'
import { sessionOf } from './guard-session.js'

describe('sessionOf', () => {
  it('should give one session per guard, hidden from the guard’s keys', async () => {
    const { guard } = await guardFixture(undefined)
    const { guard: other } = await guardFixture(undefined)
    const keys = Object.keys(guard)

    expect(sessionOf(guard)).toBe(sessionOf(guard))
    expect(sessionOf(other)).not.toBe(sessionOf(guard))
    expect(Object.keys(guard)).toEqual(keys)
  })

  it('should keep a session for a frozen guard too', async () => {
    const { guard } = await guardFixture(undefined)
    const frozen = Object.freeze({ ...guard })

    expect(sessionOf(frozen)).toBe(sessionOf(frozen))
    expect(sessionOf(frozen)).not.toBe(sessionOf(guard))
  })
})
