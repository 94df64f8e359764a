import {
  checkPathSlowly,
  findPathDenial,
  isWithin,
  isWithinRelative,
  type PathDenial,
  type PathScope,
  relativeScope,
  resolvePath,
} from '@plan/shell/common'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

/** The slow reference's verdict: undefined when allowed. */
function slowDenial(value: string, scope: PathScope, access: 'read' | 'write') {
  const resolved = checkPathSlowly(value, scope, access, scope.roots[0])
  return typeof resolved === 'string' ? undefined : (resolved as PathDenial)
}

const segment = fc.oneof(
  fc.constantFrom('src', '.git', 'config', 'hooks', '.env', 'a', 'a.b', '...', 'é', 'x y'),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 3 }),
)
const entry = fc.oneof(
  fc.constantFrom('/', '', '/srv', '/sr', '/srv/rep', '/srv/repo', '/srv/repo/', '/srv/repository'),
  fc.constantFrom('/srv/repo/.git', '/srv/repo/.gi', '/srv/repo/.git/', '/srv/repo//.git', '/data'),
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/srv/repo/${parts.join('/')}`),
  fc.array(segment, { maxLength: 3 }).map((parts) => `/${parts.join('/')}`),
)
const scopes = fc.record({
  roots: fc.oneof(
    fc.constant(['/srv/repo']),
    fc.constant(['/']),
    fc.constant(['/srv/repo', '/data']),
    fc.constantFrom(['/srv/../repo'], ['srv/repo'], ['/srv//repo'], ['C:\\repo'], []),
  ),
  deny: fc.array(entry, { maxLength: 3 }),
  readOnly: fc.array(entry, { maxLength: 3 }),
})
// Every tricky class: `..`, `.`, `//`, trailing `/`, `%2e`, NUL, Unicode, absolute, Windows
// separators and drive letters, `~`, very long, and prefixes of deny/read-only entries.
const piece = fc.oneof(
  fc.constantFrom('/', '.', '..', '//', '%2e', '%2F', '%u002e', '\u0000', '\u202e', '\\', 'C:'),
  fc.constantFrom('~', '.git', '.git/config', '.git/configx', 'hooks', '.env', '/srv/repo/', ':'),
  fc.constantFrom('a'.repeat(4097), 'ｆ', '．．', '／', 'é', '\u00a0'),
  segment,
  fc.string({ unit: 'binary', maxLength: 3 }),
)
const values = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''))

describe('findPathDenial', () => {
  it('should give the slow reference verdict and issue on any path and any scope (as resolvePath)', () => {
    fc.assert(
      fc.property(values, scopes, fc.constantFrom('read', 'write'), (value, scope, access) => {
        expect(findPathDenial(value, scope, access)).toEqual(slowDenial(value, scope, access))
        expect(resolvePath(value, scope, access)).toEqual(
          checkPathSlowly(value, scope, access, scope.roots[0]),
        )
      }),
      { numRuns: 5000 },
    )
  })

  it('should give the slow reference verdict on plain relative paths', () => {
    const plain = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/'))
    fc.assert(
      fc.property(plain, scopes, fc.constantFrom('read', 'write'), (value, scope, access) => {
        expect(findPathDenial(value, scope, access)).toEqual(slowDenial(value, scope, access))
      }),
      { numRuns: 5000 },
    )
  })

  it('should see an entry added to the same scope after an earlier check', () => {
    const deny: string[] = []
    const scope: PathScope = { roots: ['/srv/repo'], readOnly: [], deny }
    expect(findPathDenial('secrets/key', scope)).toBeUndefined()
    deny.push('/srv/repo/secrets')
    expect(findPathDenial('secrets/key', scope)?.code).toBe('path_not_allowed')
    deny[0] = '/srv/repo/other'
    expect(findPathDenial('secrets/key', scope)).toBeUndefined()
  })

  it('should refuse a write under a read-only entry and allow the read', () => {
    const scope: PathScope = { roots: ['/srv/repo'], readOnly: ['/srv/repo/.git'], deny: [] }
    expect(findPathDenial('.git/config', scope, 'read')).toBeUndefined()
    expect(findPathDenial('.git/config', scope, 'write')).toEqual(
      slowDenial('.git/config', scope, 'write'),
    )
    expect(findPathDenial('.gitignore', scope, 'write')).toBeUndefined()
  })
})

describe('isWithinRelative', () => {
  it('should compare whole segments', () => {
    expect(isWithinRelative('.git', '.git')).toBe(true)
    expect(isWithinRelative('.git', '.git/config')).toBe(true)
    expect(isWithinRelative('.git', '.gitignore')).toBe(false)
    expect(isWithinRelative('', 'a')).toBe(false)
  })
})

describe('relativeScope', () => {
  it('should agree with isWithin on the joined path for any entry', () => {
    const relative = fc
      .array(segment, { minLength: 1, maxLength: 4 })
      .map((parts) => parts.join('/'))
    fc.assert(
      fc.property(fc.constantFrom('/', '/srv/repo'), entry, relative, (root, denied, value) => {
        const view = relativeScope({ roots: [root], readOnly: [], deny: [denied] }, root)
        const under = view.deny.all || view.deny.below.some((part) => isWithinRelative(part, value))
        expect(under).toBe(isWithin(denied, root === '/' ? `/${value}` : `${root}/${value}`))
      }),
      { numRuns: 3000 },
    )
  })
})
