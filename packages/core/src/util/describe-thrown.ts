/**
 * A short description of something that was thrown, safe on hostile values (an error whose
 * `message` getter throws, a Proxy, a revoked Proxy): it never throws itself.
 */
export function describeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error && typeof thrown.message === 'string')
      return thrown.message.slice(0, 200)
    return typeof thrown === 'string' ? thrown.slice(0, 200) : `a thrown ${typeof thrown}`
  } catch {
    return 'a value that cannot be read'
  }
}
