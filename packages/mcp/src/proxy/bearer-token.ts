import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { PlanError } from '@plan/core'

/** Shortest bearer token accepted: 128 bits as hex, or more. */
export const MIN_TOKEN_LENGTH = 32

// RFC 6750's b64token: the characters a bearer token may have.
const TOKEN_CHARACTERS = /^[A-Za-z0-9\-._~+/]+=*$/

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/**
 * Throws a `PlanError` (`invalid_configuration`) for a token that is too short or has
 * characters a bearer token cannot have. The message never repeats the token.
 */
export function assertBearerToken(token: unknown): asserts token is string {
  if (typeof token !== 'string' || token.length < MIN_TOKEN_LENGTH) {
    throw new PlanError(
      `The bearer token must have at least ${MIN_TOKEN_LENGTH} characters (e.g. \`openssl rand -hex 32\`).`,
      { code: 'invalid_configuration' },
    )
  }
  if (!TOKEN_CHARACTERS.test(token)) {
    throw new PlanError(
      'The bearer token may have only letters, digits and - . _ ~ + / (then = padding).',
      { code: 'invalid_configuration' },
    )
  }
}

/**
 * A check of the `Authorization: Bearer …` header against `token`, in constant time; throws
 * as {@link assertBearerToken} does for an unusable token.
 */
export function bearerTokenCheck(token: string): (request: IncomingMessage) => boolean {
  assertBearerToken(token)
  const expected = digest(token)
  return (request) => {
    const header = request.headers.authorization
    if (typeof header !== 'string') return false
    const match = /^Bearer +(\S+) *$/i.exec(header)
    if (match === null) return false
    // Equal-length digests: the comparison takes the same time whatever was sent.
    return timingSafeEqual(digest(match[1] as string), expected)
  }
}
