import { itemAt } from '@plan/shell/common'

const cache = new Map<string, RegExp>()

function toRegExp(glob: string): RegExp {
  let source = ''
  for (let index = 0; index < glob.length; index += 1) {
    const char = itemAt(glob, index)
    if (char === '*' && glob[index + 1] === '*') {
      const slash = glob[index + 2] === '/'
      source += slash ? '(?:.*/)?' : '.*'
      index += slash ? 2 : 1
    } else if (char === '*') source += '[^/]*'
    else if (char === '?') source += '[^/]'
    else source += char.replace(/[.+^${}()|[\]\\]/gu, '\\$&')
  }
  return new RegExp(`^${source}$`, 'u')
}

/**
 * Whether a relative, `/`-separated path matches a glob: `*` and `?` stay inside one segment,
 * `**` spans segments (`src/**` matches everything under `src`). No braces, no classes.
 */
export function matchesGlob(relativePath: string, glob: string): boolean {
  let pattern = cache.get(glob)
  if (pattern === undefined) {
    pattern = toRegExp(glob)
    if (cache.size < 1024) cache.set(glob, pattern)
  }
  return pattern.test(relativePath)
}
