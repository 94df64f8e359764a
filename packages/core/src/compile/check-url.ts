import { hasUnsafeCharacter, stringAt } from '@plan/shell/common'
import { hostAllowed } from '../util/host-allowed.js'

/** The URL that was checked (WHATWG-normalised: pass this one on), or why it is refused. */
export type UrlCheckResult =
  | { readonly ok: true; readonly url: string }
  | { readonly ok: false; readonly message: string; readonly hint: string }

/** What a `format: "url"` argument accepts. */
export interface UrlRules {
  /** Schemes without the colon, e.g. `["https"]`. */
  readonly schemes: readonly string[]
  /** Hosts (`example.com`, `*.example.com`), or undefined for any host. */
  readonly hosts?: readonly string[] | undefined
}

// RFC 3986, appendix B: scheme, authority, path, query, fragment. Linear (no nested quantifiers).
const RFC3986_SPLIT = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/s
// RFC 3986 section 3.2.2: a reg-name is unreserved and sub-delims characters (and %XX, refused
// here because WHATWG decodes them in a host); an IP literal is bracketed.
const REG_NAME = /^[A-Za-z0-9\-._~!$&'()*+,;=]+$/
const IP_LITERAL = /^\[[0-9A-Fa-f:.]+\]$/
const PORT = /^[0-9]*$/
const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443' }

function refuse(message: string, hint: string): UrlCheckResult {
  return { ok: false, message, hint }
}

/** The host and port of an RFC 3986 authority, or undefined when it has another shape. */
function splitAuthority(authority: string): { host: string; port: string } | undefined {
  if (authority.includes('@')) return undefined
  const close = authority.lastIndexOf(']')
  const colon = authority.lastIndexOf(':')
  const host = colon > close ? authority.slice(0, colon) : authority
  const port = colon > close ? authority.slice(colon + 1) : ''
  if (!PORT.test(port)) return undefined
  if (!REG_NAME.test(host) && !IP_LITERAL.test(host)) return undefined
  return { host, port }
}

function samePort(scheme: string, rfcPort: string, whatwgPort: string): boolean {
  // Compared as text: a port with leading zeros is not in one plain form.
  const normal = rfcPort === DEFAULT_PORTS[scheme] ? '' : rfcPort
  return normal === whatwgPort
}

/**
 * Checks a URL argument with two parsers, the WHATWG URL Standard (what `fetch` and Node use) and
 * a strict RFC 3986 reading (what many HTTP clients, proxies and allow-lists use), refusing it
 * where they could disagree about where it goes: backslashes, `@` or credentials in the authority,
 * whitespace or control characters, a missing `//`, percent-escapes, non-ASCII or IPv4 shorthands
 * (`0x7f.1`, `2130706433`) in the host. Then scheme and host must be allowed; `url` is normalised.
 */
export function checkUrl(value: string, rules: UrlRules): UrlCheckResult {
  const example = `${rules.schemes[0] ?? 'https'}://example.com/path`
  if (hasUnsafeCharacter(value) || /\s/u.test(value))
    return refuse(
      'The URL contains whitespace, a control or an invisible character.',
      'Write the URL without spaces; percent-encode them in the path (%20).',
    )
  if (value.includes('\\'))
    return refuse(
      'The URL contains a backslash, which URL parsers read differently (as "/" or as data).',
      'Use forward slashes only.',
    )
  const parts = RFC3986_SPLIT.exec(value)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return refuse('The value is not an absolute URL.', `Pass a full URL such as ${example}.`)
  }
  const scheme = url.protocol.slice(0, -1)
  if (!rules.schemes.includes(scheme))
    return refuse(`URL scheme "${scheme}" is not accepted.`, `Use ${rules.schemes.join(' or ')}.`)
  if (url.username !== '' || url.password !== '' || parts?.[2]?.includes('@') === true)
    return refuse(
      'The URL carries credentials (an "@" in its authority).',
      'Remove the user name and password from the URL.',
    )
  const authority = parts === null ? undefined : splitAuthority(stringAt(parts, 2))
  if (
    parts === null ||
    authority === undefined ||
    stringAt(parts, 1).toLowerCase() !== scheme ||
    authority.host.toLowerCase() !== url.hostname ||
    !samePort(scheme, authority.port, url.port)
  )
    return refuse(
      'URL parsers disagree about where this URL goes (its host or port is not written in one plain form).',
      `Write "scheme://host[:port]/path" with an ASCII host name (punycode for others), e.g. ${example}.`,
    )
  const host = url.hostname
  if (rules.hosts !== undefined && !hostAllowed(host, rules.hosts))
    return refuse(
      `Host ${JSON.stringify(host)} is not accepted.`,
      `Use one of: ${rules.hosts.join(', ')}.`,
    )
  return { ok: true, url: url.href }
}
