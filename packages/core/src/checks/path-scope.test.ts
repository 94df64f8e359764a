import { posix } from 'node:path'
import {
  checkPathLexical,
  checkPathSlowly,
  isWithin,
  type PathScope,
  resolvePath,
} from '@plan/shell/common'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

const scope: PathScope = {
  roots: ['/srv/repo', '/data/shared'],
  readOnly: ['/srv/repo/.git'],
  deny: ['/srv/repo/.env'],
}
const check = (value: unknown, access: 'read' | 'write' = 'read') =>
  checkPathLexical(value, scope, access)
const codeOf = (value: unknown, access: 'read' | 'write' = 'read') => {
  const result = check(value, access)
  return result.allowed ? 'allowed' : result.issue.code
}

describe('checkPathLexical', () => {
  it.each([
    ['core/auth.py', '/srv/repo/core/auth.py'],
    ['./src/../README.md', '/srv/repo/README.md'],
    ['/srv/repo', '/srv/repo'],
    ['/srv/repo/', '/srv/repo'],
    ['/data/shared/x.csv', '/data/shared/x.csv'],
    ['a b/ünïcode.txt', '/srv/repo/a b/ünïcode.txt'],
    ['file~backup', '/srv/repo/file~backup'],
    ['100%.txt', '/srv/repo/100%.txt'],
  ])('should allow %j, resolving it to %s', (value, resolved) => {
    expect(check(value)).toEqual({ allowed: true, resolved })
  })

  it.each([
    ['../../etc/passwd', 'path_outside_workspace'],
    ['/etc/passwd', 'path_outside_workspace'],
    ['/srv/repo-evil/x', 'path_outside_workspace'],
    ['/srv/repo/../repo-evil', 'path_outside_workspace'],
    ['src/../../..', 'path_outside_workspace'],
    ['/', 'path_outside_workspace'],
    ['', 'path_invalid'],
    ['a\u0000b', 'path_invalid'],
    ['a\nb', 'path_invalid'],
    ['evil\u202etxt.sh', 'path_invalid'],
    ['~/.ssh/id_rsa', 'path_invalid'],
    ['~root/x', 'path_invalid'],
    ['C:\\Windows\\System32', 'path_invalid'],
    ['c:/windows', 'path_invalid'],
    ['\\\\server\\share\\x', 'path_invalid'],
    ['..\\..\\etc\\passwd', 'path_invalid'],
    ['//server/share', 'path_invalid'],
    ['%2e%2e/%2e%2e/etc/passwd', 'path_invalid'],
    ['..%2f..%2fetc%2fpasswd', 'path_invalid'],
    ['%252e%252e/etc', 'path_invalid'],
    ['file:///etc/passwd', 'path_invalid'],
    ['x'.repeat(5000), 'path_invalid'],
    ['.env', 'path_not_allowed'],
    ['/srv/repo/.env/nested', 'path_not_allowed'],
    [42, 'invalid_arguments'],
    [null, 'invalid_arguments'],
    [['a'], 'invalid_arguments'],
  ])('should deny %j with %s', (value, code) => {
    expect(codeOf(value)).toBe(code)
  })

  it('should let read-only paths be read but not written', () => {
    expect(codeOf('.git/config', 'read')).toBe('allowed')
    expect(codeOf('.git/hooks/pre-commit', 'write')).toBe('path_not_allowed')
    expect(codeOf('.gitignore', 'write')).toBe('allowed')
  })

  it('should give every denial a message and a hint', () => {
    const result = check('../x')
    expect(result.allowed).toBe(false)
    if (!result.allowed) {
      expect(result.issue.message).toContain('/srv/x')
      expect(result.issue.hint).toContain('/srv/repo')
    }
  })
})

describe('checkPathLexical (property)', () => {
  const segment = fc.constantFrom('src', 'a', '.', '..', '', '.env', '.git', 'x y', 'b.ts', 'repo')
  const pathArb = fc
    .tuple(fc.boolean(), fc.array(segment, { minLength: 1, maxLength: 5 }))
    .map(([absolute, parts]) => `${absolute ? '/srv/' : ''}${parts.join('/')}`)

  it('should resolve every path as posix.resolve does, and allow it only inside a root', () => {
    fc.assert(
      fc.property(pathArb, fc.constantFrom('read', 'write'), (value, access) => {
        const result = checkPathLexical(value, scope, access)
        const resolved = posix.resolve('/srv/repo', value)
        const inside = scope.roots.some((root) => isWithin(root, resolved))
        if (result.allowed) {
          expect(result.resolved).toBe(resolved)
          expect(inside).toBe(true)
        } else if (!inside) {
          expect(['path_outside_workspace', 'path_invalid']).toContain(result.issue.code)
        }
      }),
      { numRuns: 2000 },
    )
  })
})

describe('resolvePath (property)', () => {
  const pieces = fc.oneof(
    fc.constantFrom(
      '/',
      '.',
      '..',
      '%',
      '%2e',
      '%u002e',
      '~',
      '\\',
      ':',
      'src',
      '.env',
      '/srv/repo',
    ),
    fc.string({ unit: 'binary', maxLength: 4 }),
    fc.string({ unit: 'grapheme', maxLength: 4 }),
  )
  const values = fc.array(pieces, { maxLength: 8 }).map((parts) => parts.join(''))

  it('should give the same answer on the fast path as the slow reference, for any Unicode text', () => {
    fc.assert(
      fc.property(values, fc.constantFrom('read', 'write'), (value, access) => {
        expect(resolvePath(value, scope, access)).toEqual(
          checkPathSlowly(value, scope, access, scope.roots[0]),
        )
      }),
      { numRuns: 5000 },
    )
  })
})

describe('isWithin', () => {
  it('should compare whole path segments', () => {
    expect(isWithin('/srv/repo', '/srv/repo/a')).toBe(true)
    expect(isWithin('/srv/repo', '/srv/repo')).toBe(true)
    expect(isWithin('/srv/repo', '/srv/repository')).toBe(false)
    expect(isWithin('/', '/anything')).toBe(true)
  })
})
