const SLASH = 0x2f

/** True when `child` is `parent` or lies below it, compared segment by segment. */
export function isWithin(parent: string, child: string): boolean {
  if (parent === '/') return child.startsWith('/')
  if (child.length <= parent.length) return child === parent
  return child.charCodeAt(parent.length) === SLASH && child.startsWith(parent)
}
