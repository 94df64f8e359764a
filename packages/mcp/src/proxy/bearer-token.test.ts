import type { IncomingMessage } from 'node:http'
import { PlanError } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { assertBearerToken, bearerTokenCheck, MIN_TOKEN_LENGTH } from './bearer-token.js'

const TOKEN = 'a3f1c9e07b5d4c2e9f8a6b1d0c7e5f43'

function withAuthorization(authorization?: string): IncomingMessage {
  return {
    headers: authorization === undefined ? {} : { authorization },
  } as unknown as IncomingMessage
}

describe('assertBearerToken', () => {
  it.each([
    ['a short token', 'x'.repeat(MIN_TOKEN_LENGTH - 1)],
    ['a token with a space', `${TOKEN} x`],
    ['a token with a quote', `${TOKEN}"`],
    ['a token with a new line', `${TOKEN}\n`],
    ['a non-ASCII token', `${TOKEN}é`],
    ['padding in the middle', `${TOKEN.slice(0, 16)}=${TOKEN.slice(16)}`],
    ['a number', 1234567890],
  ])('should refuse %s with invalid_configuration, without repeating it', (_, token) => {
    let thrown: unknown
    try {
      assertBearerToken(token)
    } catch (error) {
      thrown = error
    }
    expect(PlanError.isInstance(thrown)).toBe(true)
    expect((thrown as PlanError).code).toBe('invalid_configuration')
    expect((thrown as PlanError).message).not.toContain(String(token))
  })

  it('should accept a hex or base64 token of 32 characters or more', () => {
    expect(() => assertBearerToken(TOKEN)).not.toThrow()
    expect(() => assertBearerToken('Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9v+/==')).not.toThrow()
  })
})

describe('bearerTokenCheck', () => {
  const check = bearerTokenCheck(TOKEN)

  it('should accept the token as a Bearer credential, in any case of the scheme', () => {
    expect(check(withAuthorization(`Bearer ${TOKEN}`))).toBe(true)
    expect(check(withAuthorization(`bearer ${TOKEN}`))).toBe(true)
  })

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['another scheme', `Basic ${TOKEN}`],
    ['the bare token', TOKEN],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, -1)}`],
    ['the token and more', `Bearer ${TOKEN}0`],
    ['two credentials', `Bearer ${TOKEN} ${TOKEN}`],
    ['another token of the same length', `Bearer ${'0'.repeat(TOKEN.length)}`],
    ['a comma-joined repeat', `Bearer ${TOKEN}, Bearer ${TOKEN}`],
  ])('should refuse %s', (_, header) => {
    expect(check(withAuthorization(header))).toBe(false)
  })
})
