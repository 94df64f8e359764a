import { isWithin, posix } from '@plan/shell/common'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { workspaceRelative } from './workspace-relative.js'

/** Every path resolved and every root normalised, as each call did before any was skipped. */
function everyPathResolved(value: string, roots: readonly string[]): string | undefined {
  const first = roots[0]
  if (first === undefined) return undefined
  const absolute = posix.resolve(first, value)
  for (const candidate of roots) {
    const root = posix.normalize(candidate).replace(/\/+$/u, '') || '/'
    if (absolute === root) return ''
    if (isWithin(root, absolute)) return absolute.slice(root === '/' ? 1 : root.length + 1)
  }
  return undefined
}

const segmentArb = fc.constantFrom('', '.', '..', '...', '.x', 'srv', 'repo', 'repo-evil', 'a b')
const pathArb = fc
  .record({ absolute: fc.boolean(), segments: fc.array(segmentArb, { maxLength: 6 }) })
  .map(({ absolute, segments }) => `${absolute ? '/' : ''}${segments.join('/')}`)

describe('workspaceRelative', () => {
  it('should place a path as resolving every path and root does', () => {
    fc.assert(
      fc.property(pathArb, fc.array(pathArb, { minLength: 1, maxLength: 3 }), (value, roots) => {
        expect(workspaceRelative(value, roots)).toBe(everyPathResolved(value, roots))
      }),
      { numRuns: 5000 },
    )
  })

  it('should place a path inside a root, and none beside it', () => {
    expect(workspaceRelative('/srv/repo/src/../a.js', ['/srv/repo/'])).toBe('a.js')
    expect(workspaceRelative('/srv/repo-evil/a.js', ['/srv/repo'])).toBeUndefined()
    expect(workspaceRelative('src/a.js', ['/srv/other', '/srv/repo'])).toBe('src/a.js')
    expect(workspaceRelative('/srv/repo', ['/srv/repo'])).toBe('')
  })
})
