import { valueAt } from '../util/item-at.js'

/** What one git pathspec selects, with its magic read (`:(top,icase)x`, `:!x`, `:/x`). */
export interface GitPathspec {
  /** The path or pattern, from the workspace root. */
  readonly pattern: string
  readonly literal: boolean
  /** `glob` magic: `*` stops at a `/`, and a `**` segment crosses any number of folders. */
  readonly glob: boolean
  readonly icase: boolean
  /** An exclusion (`:!x`, `:^x`, `:(exclude)x`): the command reads everything else. */
  readonly exclude: boolean
}

/** Magic that git's own options give every pathspec (`git --icase-pathspecs log …`). */
export interface PathspecDefaults {
  readonly glob?: boolean
  readonly icase?: boolean
}

/**
 * The pathspec magic the options before the subcommand give every pathspec:
 * `--glob-pathspecs`, `--icase-pathspecs`. (`--literal-pathspecs` turns magic off, which only
 * selects less than the words read with it.)
 */
export function globalPathspecMagic(options: readonly string[]): PathspecDefaults {
  return {
    glob: options.includes('--glob-pathspecs'),
    icase: options.includes('--icase-pathspecs'),
  }
}

const SHORT_MAGIC: Readonly<Record<string, string>> = { '/': 'top', '!': 'exclude', '^': 'exclude' }
const GLOB_CHARACTERS = /[*?[]/

/**
 * Reads a word as git reads a pathspec: magic in `:(…)` or the short `:/`, `:!`, `:^` forms,
 * else the word itself. A word that starts with `:` and no known magic (`:x`) is a path too.
 */
export function parseGitPathspec(word: string, defaults: PathspecDefaults = {}): GitPathspec {
  const magic = new Set<string>()
  if (defaults.glob === true) magic.add('glob')
  if (defaults.icase === true) magic.add('icase')
  let pattern = word
  if (word.startsWith(':(')) {
    const close = word.indexOf(')')
    const words = close === -1 ? word.slice(2) : word.slice(2, close)
    for (const entry of words.split(',')) magic.add(entry.trim().split(':')[0]?.toLowerCase() ?? '')
    pattern = close === -1 ? '' : word.slice(close + 1)
  } else if (word.startsWith(':')) {
    let index = 1
    while (index < word.length && Object.hasOwn(SHORT_MAGIC, word.charAt(index))) {
      magic.add(valueAt(SHORT_MAGIC, word.charAt(index)))
      index += 1
    }
    if (word[index] === ':') index += 1
    pattern = word.slice(index)
  }
  return {
    pattern: pattern.replace(/^\.\/+/, '').replace(/\/+$/, '') || '.',
    literal: magic.has('literal'),
    glob: magic.has('glob'),
    icase: magic.has('icase'),
    exclude: magic.has('exclude'),
  }
}

/**
 * True when a pathspec selects the path (relative to the root), or a folder that holds it:
 * `.`, the path, an ancestor, a case variant under `icase`, or a glob that matches it.
 */
export function pathspecSelects(spec: GitPathspec, path: string): boolean {
  if (spec.exclude) return !matches(spec, path)
  return matches(spec, path)
}

function matches(spec: GitPathspec, path: string): boolean {
  const fold = (text: string) => (spec.icase ? text.toLowerCase() : text)
  const pattern = fold(spec.pattern)
  const target = fold(path)
  if (pattern === '.' || target === pattern || target.startsWith(`${pattern}/`)) return true
  if (spec.literal || !GLOB_CHARACTERS.test(pattern)) return false
  const expression = globExpression(pattern, spec.glob)
  const segments = target.split('/')
  // A glob selects a path when it matches the path or one of its leading folders.
  return segments.some((_, index) => expression.test(segments.slice(0, index + 1).join('/')))
}

/**
 * git's wildmatch as a regular expression. Without `glob` magic (no WM_PATHNAME) `*` and `?`
 * cross `/`. With it they stay within a folder name, and a `**` that is a whole path segment
 * stands for any number of folders, none too (so `.env` is selected by a `**` segment before
 * it), or, last, for all inside.
 */
function globExpression(pattern: string, pathname: boolean): RegExp {
  const any = pathname ? '[^/]' : '.'
  let source = ''
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern.charAt(index)
    if (pathname && isFolderStars(pattern, index)) {
      source += index + 2 === pattern.length ? '.*' : '(?:.*/)?'
      index += 2
    } else if (char === '*') source += `${any}*`
    else if (char === '?') source += any
    else if (char === '[') {
      const close = pattern.indexOf(']', index + 2)
      if (close === -1) source += '\\['
      else {
        const body = pattern
          .slice(index + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')
        source += `${pathname ? '(?!/)' : ''}[${body}]`
        index = close
      }
    } else source += char.replace(/[.+^${}()|\\]/g, '\\$&')
  }
  return new RegExp(`^${source}$`, 's')
}

// A `**` that is a whole segment of the pattern: at its start or after a `/`, and at its end or before one.
function isFolderStars(pattern: string, index: number): boolean {
  return (
    pattern.startsWith('**', index) &&
    (index === 0 || pattern[index - 1] === '/') &&
    (index + 2 === pattern.length || pattern[index + 2] === '/')
  )
}
