import { posix as nodePosix } from 'node:path'
import { posix } from '@plan/shell/common'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

const segment = fc.constantFrom('', '.', '..', 'a', 'b.txt', '...', '.git', 'x y', '%2e', '~')
const path = fc
  .tuple(fc.boolean(), fc.array(segment, { maxLength: 6 }), fc.boolean())
  .map(
    ([absolute, parts, trailing]) =>
      `${absolute ? '/' : ''}${parts.join('/')}${trailing ? '/' : ''}`,
  )

describe('posix', () => {
  it.each(['', '/', '//', '/a//b/../c/.', 'a/..', '../../a', '/../a', 'a/b/', './'])(
    'should normalize, split and test %j as node:path does',
    (value) => {
      expect(posix.normalize(value)).toBe(nodePosix.normalize(value))
      expect(posix.dirname(value)).toBe(nodePosix.dirname(value))
      expect(posix.isAbsolute(value)).toBe(nodePosix.isAbsolute(value))
    },
  )

  it('should give the results of node:path for generated paths', () => {
    fc.assert(
      fc.property(path, path, path, (first, second, third) => {
        expect(posix.normalize(first)).toBe(nodePosix.normalize(first))
        expect(posix.dirname(first)).toBe(nodePosix.dirname(first))
        expect(posix.join(first, second, third)).toBe(nodePosix.join(first, second, third))
        expect(posix.resolve(`/${first}`, second, third)).toBe(
          nodePosix.resolve(`/${first}`, second, third),
        )
        expect(posix.resolve(first, second)).toBe(nodePosix.resolve(first, second))
      }),
      { numRuns: 5000 },
    )
  })
})
