const URL = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//

/**
 * True when a word looks like a file path: absolute, `~…`, `.`/`..` or containing a `..`
 * segment, a `file://` URL, or containing `/` without spaces or backslashes (so that commit
 * messages and regexes are not mistaken for paths).
 */
export function looksLikePath(value: string): boolean {
  if (value.startsWith('/') || value.startsWith('~')) return true
  if (value === '.' || value === '..' || value.startsWith('./') || value.startsWith('../'))
    return true
  if (value.includes('/../') || value.endsWith('/..')) return true
  if (value.includes('://') && URL.test(value)) return value.toLowerCase().startsWith('file:')
  return value.includes('/') && !/[\s\\]/.test(value)
}
