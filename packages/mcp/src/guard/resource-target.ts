/** Longest resource URI read, in characters: a longest path (4096) with every byte encoded. */
export const MAX_RESOURCE_URI_LENGTH = 3 * 4096 + 'file://'.length

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/
// Raw characters that parsers disagree on: WHATWG URLs turn `\` into `/` and a drive's `C|`
// into `C:`, and a server that strips `file://` by hand keeps `?`/`#` in the path, where
// `#/../..` climbs out.
const AMBIGUOUS = /[?#|\\\u0000-\u001f\u007f]/
// Encoded separators and NUL: one decoder splits on them, another does not.
const ENCODED_SEPARATOR = /%(?:2f|5c|00)/i

/** What a resource URI names: a file's absolute path, another scheme, or nothing usable. */
export type ResourceTarget =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'scheme'; readonly scheme: string }
  | { readonly kind: 'invalid'; readonly message: string; readonly hint: string }

const FILE_HINT = 'Name a file as file:///<absolute path inside the workspace>, plainly spelled.'

function invalid(message: string, hint = FILE_HINT): ResourceTarget {
  return { kind: 'invalid', message, hint }
}

/** A URI shortened for a message. */
export function shownUri(uri: string): string {
  return JSON.stringify(uri.length > 200 ? `${uri.slice(0, 200)}…` : uri)
}

/**
 * The path of a `file:///…` URI, decoded once, if every reader would agree on it: no host (not
 * even `localhost`), no query or fragment, no backslash, control character, encoded `/`, `\`
 * or NUL, and no empty, `.` or `..` segment, raw or encoded. The scheme is matched without
 * regard to case, as RFC 3986 says (`FILE:` is `file:`).
 */
function filePath(uri: string, rest: string): ResourceTarget {
  if (!rest.startsWith('///'))
    return invalid(
      `The resource URI ${shownUri(uri)} is not file:///<absolute path>: it names a host, or lacks the "//".`,
      'Use file:///<absolute path>, with no host (not even localhost).',
    )
  const raw = rest.slice(2)
  if (AMBIGUOUS.test(raw) || ENCODED_SEPARATOR.test(raw))
    return invalid(
      `The resource URI ${shownUri(uri)} has a query, fragment, backslash, control character or encoded separator.`,
    )
  let path: string
  try {
    path = decodeURIComponent(raw)
  } catch {
    return invalid(`The resource URI ${shownUri(uri)} has malformed percent-encoding.`)
  }
  const segments = (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/')
  if (segments.slice(1).some((segment) => segment === '' || segment === '.' || segment === '..'))
    return invalid(
      `The resource URI ${shownUri(uri)} has an empty, "." or ".." segment (perhaps percent-encoded).`,
    )
  return { kind: 'file', path }
}

/** Reads a resource URI: a `file:` path to check, another scheme, or why it is unusable. */
export function resourceTarget(uri: unknown): ResourceTarget {
  if (typeof uri !== 'string' || uri.length === 0)
    return invalid('The resource URI must be a non-empty string.')
  if (uri.length > MAX_RESOURCE_URI_LENGTH)
    return invalid(
      `The resource URI is ${uri.length} characters long, more than ${MAX_RESOURCE_URI_LENGTH}.`,
    )
  const match = SCHEME.exec(uri)
  if (match === null) return invalid(`The resource URI ${shownUri(uri)} has no scheme.`)
  const scheme = (match[1] as string).toLowerCase()
  if (scheme !== 'file') return { kind: 'scheme', scheme }
  return filePath(uri, uri.slice(match[0].length))
}
