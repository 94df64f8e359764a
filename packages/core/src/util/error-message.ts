/**
 * The message of whatever was thrown (a tool's error, a store's, a parser's), cut to
 * `maxLength` characters (an ellipsis marks the cut). Safe on hostile values (a `message` getter
 * that throws, a Proxy, a revoked Proxy, a `toString` that throws): it never throws itself.
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
