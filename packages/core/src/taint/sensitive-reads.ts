import { commandReads } from '@plan/shell'
import type { PathScope } from '@plan/shell/common'
import type { TaintedPolicy } from '../schema/tainted-schema.js'
import { matchesGlob } from './match-glob.js'
import { workspaceRelative } from './workspace-relative.js'

/** Copies of a secrets file that hold none: `.env.example`, `config.sample`, … */
const TEMPLATE = /\.(example|sample|template|dist|defaults)$/iu

/** Decides which workspace paths count as sensitive for one policy. */
export interface SensitivePaths {
  /** A path (relative to a root) whose reading is access to sensitive data. */
  file(relative: string): boolean
  /** A folder (relative to a root) beneath which a sensitive path may lie. */
  tree(relative: string): boolean
}

/** Suffixes of copies of a file: backups and local variants. */
const COPY = /^(\.(bak|old|orig|save|swp|backup|local|prod|production)|~)$/iu

/**
 * Whether a path is a copy or variant of a denied one: `.env.local` or `.env.prod` beside a
 * denied dotfile `.env`, `config.json.bak` beside `config.json`; never the entry itself.
 */
function besideDenied(relative: string, entry: string): boolean {
  if (relative === entry || !relative.startsWith(entry)) return false
  const rest = relative.slice(entry.length)
  const dotfile = (entry.split('/').pop() ?? '').startsWith('.')
  return (dotfile && /^[.\-_]/u.test(rest) && !rest.includes('/')) || COPY.test(rest)
}

/** Whether a glob may match `folder` or a path beneath it (segment by segment). */
function mayMatchBeneath(glob: string, folder: string): boolean {
  const patterns = glob.split('/')
  const segments = folder === '' ? [] : folder.split('/')
  for (const [index, segment] of segments.entries()) {
    const pattern = patterns[index]
    if (pattern === undefined) return false
    if (pattern === '**') return true
    if (!matchesGlob(segment, pattern)) return false
  }
  return true
}

/**
 * The sensitive paths of a policy: those matching `trust.tainted.sensitive` (a `!` glob takes paths
 * back out) and those beside a `deny` entry (`.env.local` next to a denied `.env`); templates
 * (`.env.example`) never are. A tree counts when a `sensitive` glob may match beneath it.
 */
export function sensitivePaths(
  tainted: TaintedPolicy,
  scope: PathScope,
  roots: readonly string[],
): SensitivePaths {
  const positive = tainted.sensitive.filter((glob) => !glob.startsWith('!'))
  const negative = tainted.sensitive
    .filter((glob) => glob.startsWith('!'))
    .map((glob) => glob.slice(1))
  const denied = scope.deny
    .map((entry) => workspaceRelative(entry, scope.roots) ?? workspaceRelative(entry, roots))
    .filter((entry): entry is string => entry !== undefined && entry !== '')
  return {
    file(relative) {
      if (TEMPLATE.test(relative) || negative.some((glob) => matchesGlob(relative, glob)))
        return false
      if (positive.some((glob) => matchesGlob(relative, glob))) return true
      return denied.some((entry) => besideDenied(relative, entry))
    },
    tree(relative) {
      return positive.some((glob) => mayMatchBeneath(glob, relative))
    },
  }
}

/** Whether a command reads a sensitive path: an operand that is one, or a tree that may hold one. */
export function commandReadsSensitive(
  argv: readonly string[],
  sensitive: SensitivePaths,
  roots: readonly string[],
): boolean {
  const reads = commandReads(argv)
  const names = (word: string, test: (relative: string) => boolean) => {
    const relative = workspaceRelative(word, roots)
    return relative !== undefined && test(relative)
  }
  return (
    reads.operands.some((word) => names(word, sensitive.file)) ||
    reads.trees.some((word) => names(word, sensitive.tree))
  )
}
