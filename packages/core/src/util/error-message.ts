/** The message of whatever was thrown (a tool's error, a store's), without throwing again. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message
  try {
    return String(error)
  } catch {
    return 'an unprintable error'
  }
}
