import type { PathScope } from '../types/path-scope.js'
import { nodeBuiltin } from '../util/node-builtin.js'
import { noteDiskConsulted } from './disk-verdicts.js'

interface ChildProcess {
  spawnSync(
    command: string,
    args: readonly string[],
    options: { encoding: 'utf8'; timeout: number; env: Record<string, string> },
  ): { status: number | null; stdout: string; error?: Error }
}
interface FileSystem {
  existsSync(path: string): boolean
  statSync(path: string, options: { throwIfNoEntry: false }): { mtimeMs: number } | undefined
}

// git options that keep it from running anything a repository's configuration names.
const SAFE_GIT = [
  '--no-pager',
  '--no-optional-locks',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'diff.external=',
  '-c',
  'core.pager=cat',
]
const answers = new Map<string, boolean>()
// Roots seen without a repository, with when: looked at again after a second.
const withoutRepository = new Map<string, number>()
const RECHECK_MS = 1000

function hasRepository(fs: FileSystem, prefix: string): boolean {
  const now = Date.now()
  const seen = withoutRepository.get(prefix)
  if (seen !== undefined && now - seen < RECHECK_MS) return false
  if (fs.existsSync(`${prefix}/.git/HEAD`)) return true
  if (withoutRepository.size > 64) withoutRepository.clear()
  withoutRepository.set(prefix, now)
  return false
}

/**
 * True when the repository at the scope's first root has a `deny` path in its history (any
 * ref) or its index, so that a command printing history or the index prints it; false when
 * it has none, or there is no repository. Asks git, with options that stop it from running
 * anything the repository configures, and keeps the answer until the index or `HEAD`'s log
 * changes. Where the checker cannot run git, the answer is true: history may hold anything.
 */
export function hasCommittedDeniedPath(scope: PathScope): boolean {
  const found = committedDeniedPath(scope)
  if (found.fromDisk) noteDiskConsulted(() => committedDeniedPath(scope).answer, found.answer)
  return found.answer
}

let modules: { child?: ChildProcess; fs?: FileSystem } | undefined

// Looked up once: every history check of every command asks for them.
function hostModules(): { child?: ChildProcess; fs?: FileSystem } {
  modules ??= {
    child: nodeBuiltin<ChildProcess>('node:child_process'),
    fs: nodeBuiltin<FileSystem>('node:fs'),
  }
  return modules
}

// The answer, and whether the disk (or git) gave it.
function committedDeniedPath(scope: PathScope): { answer: boolean; fromDisk: boolean } {
  const root = scope.roots[0]
  if (root === undefined) return { answer: false, fromDisk: false }
  const prefix = root === '/' ? '' : root
  const denied = scope.deny
    .filter((path) => path.startsWith(`${prefix}/`))
    .map((path) => `:(top,literal)${path.slice(prefix.length + 1)}`)
  if (denied.length === 0) return { answer: false, fromDisk: false }
  const { child, fs } = hostModules()
  if (child === undefined || fs === undefined) return { answer: true, fromDisk: false }
  if (!hasRepository(fs, prefix)) return { answer: false, fromDisk: true }
  const stamp = ['index', 'logs/HEAD', 'packed-refs']
    .map((file) => fs.statSync(`${prefix}/.git/${file}`, { throwIfNoEntry: false })?.mtimeMs ?? 0)
    .join(',')
  const key = `${root}\u0000${denied.join('\u0000')}\u0000${stamp}`
  const known = answers.get(key)
  if (known !== undefined) return { answer: known, fromDisk: true }
  const git = (args: readonly string[]) => runGit(child, root, args)
  const history = git(['log', '--all', '--format=%H', '-1', '--', ...denied])
  const index = git(['ls-files', '--cached', '--', ...denied])
  const answer =
    history.error !== undefined ||
    (history.status === 0 && history.stdout.trim().length > 0) ||
    (index.status === 0 && index.stdout.trim().length > 0)
  if (answers.size > 64) answers.clear()
  answers.set(key, answer)
  return { answer, fromDisk: true }
}

function runGit(child: ChildProcess, root: string, args: readonly string[]) {
  return child.spawnSync('git', ['-C', root, ...SAFE_GIT, ...args], {
    encoding: 'utf8',
    timeout: 10_000,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' },
  })
}

/**
 * The `deny` paths (absolute) that the repository at the scope's first root tracks in its
 * index or has in its history: each would be printed by a reader of history (`git show`,
 * `git log -p`). Empty without a repository or where git cannot run.
 */
export function trackedDeniedPaths(scope: PathScope): string[] {
  const root = scope.roots[0]
  const child = nodeBuiltin<ChildProcess>('node:child_process')
  const fs = nodeBuiltin<FileSystem>('node:fs')
  if (root === undefined || child === undefined || fs === undefined) return []
  const prefix = root === '/' ? '' : root
  // No repository, nothing tracked: a compiler for such a root starts no git process.
  if (scope.deny.length === 0 || !fs.existsSync(`${prefix}/.git`)) return []
  return scope.deny.filter((path) => {
    if (!path.startsWith(`${prefix}/`)) return false
    const spec = `:(top,literal)${path.slice(prefix.length + 1)}`
    const index = runGit(child, root, ['ls-files', '--cached', '--', spec])
    if (index.status === 0 && index.stdout.trim().length > 0) return true
    const history = runGit(child, root, ['log', '--all', '--format=%H', '-1', '--', spec])
    return history.status === 0 && history.stdout.trim().length > 0
  })
}
