/**
 * True when `host` matches an allow-list entry: the same name (case-insensitive, a trailing
 * dot ignored), or a subdomain of `example.com` for an entry `*.example.com`.
 */
export function hostAllowed(host: string, allow: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '')
  if (name.length === 0) return false
  return allow.some((entry) => {
    const pattern = entry.toLowerCase().replace(/\.$/, '')
    if (pattern.startsWith('*.'))
      return name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1
    return name === pattern
  })
}
