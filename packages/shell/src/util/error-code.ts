/** The `code` of a thrown Node.js system error (`ENOENT`, `ELOOP`), else undefined; never throws. */
export function errorCode(thrown: unknown): string | undefined {
  try {
    if (typeof thrown !== 'object' || thrown === null || !('code' in thrown)) return undefined
    return typeof thrown.code === 'string' ? thrown.code : undefined
  } catch {
    return undefined
  }
}
