/**
 * The message of whatever was thrown, cut to `maxLength` characters (an ellipsis marks the cut).
 * Never throws on hostile values (a throwing `message` getter or `toString`, a revoked Proxy).
 */
export function errorMessage(thrown: unknown, maxLength = Number.POSITIVE_INFINITY): string {
  let text: string
  try {
    text =
      thrown instanceof Error && typeof thrown.message === 'string'
        ? thrown.message
        : String(thrown)
  } catch {
    return 'a value that cannot be read'
  }
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text
}
