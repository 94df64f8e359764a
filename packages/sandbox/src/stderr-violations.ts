import type { CommandViolation } from '@plan/tools'

const REPORTS: readonly [RegExp, CommandViolation['kind']][] = [
  [/Read-only file system/i, 'write'],
  [/Permission denied|Operation not permitted/i, 'read'],
  [
    /Network is unreachable|Could not resolve host|Temporary failure in name resolution|EAI_AGAIN|ENETUNREACH|Couldn't connect to server/i,
    'network',
  ],
]

/**
 * Reads the refusals a program reports on stderr (bubblewrap itself reports none): a write to
 * a read-only mount, a masked file, an unreachable network. Best effort: a program that hides
 * its errors reports nothing, and the refusal happened all the same.
 */
export function violationsFromStderr(stderr: string, limit = 20): CommandViolation[] {
  const found: CommandViolation[] = []
  for (const line of stderr.split('\n')) {
    if (found.length >= limit) break
    const match = REPORTS.find(([pattern]) => pattern.test(line))
    if (match === undefined) continue
    const path = /(?:^|[\s'"`‘:])(\/[^\s'"`’:]+)/.exec(line)?.[1]
    const message = line.trim().slice(0, 500)
    found.push(
      path === undefined ? { kind: match[1], message } : { kind: match[1], message, target: path },
    )
  }
  return found
}
