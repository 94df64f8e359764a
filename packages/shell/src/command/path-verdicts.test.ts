import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { PathScope } from '../types/path-scope.js'
import { checkCommandPaths, PathVerdicts, protectedNames } from './check-command-paths.js'
import { noteDiskConsulted } from './disk-verdicts.js'

const scope: PathScope = {
  roots: ['/srv/repo'],
  readOnly: ['/srv/repo/vendor', '/srv/repo/.git'],
  deny: ['/srv/repo/.env'],
}
const names = protectedNames(scope)
const PROGRAMS = ['cat', 'cp', 'rm', 'git', 'grep', 'tar', 'sed', 'find', 'curl', 'unknown']
const WORDS = [
  '.env',
  'vendor/a',
  'src/a.ts',
  '/etc/passwd',
  '.',
  '-r',
  '-o',
  '--output=x',
  'HEAD~1',
]
const MORE = ['.git/config', 'a b', '@.env', 'file:.env', '-f', 'x=.env', '../out', 'status', '-c']

describe('PathVerdicts', () => {
  it('should give the verdicts of the uncached check, for words met before in any role', () => {
    const verdicts = new PathVerdicts()
    const command = fc.tuple(
      fc.constantFrom(...PROGRAMS),
      fc.array(fc.constantFrom(...WORDS, ...MORE), { maxLength: 6 }),
    )
    fc.assert(
      fc.property(command, ([name, args]) => {
        const uncached = checkCommandPaths(name, args, scope, names)
        expect(checkCommandPaths(name, args, scope, names, undefined, verdicts)).toEqual(uncached)
      }),
      { numRuns: 3000 },
    )
  })

  it('should keep no verdict that looked at the disk', () => {
    const verdicts = new PathVerdicts()
    let asked = 0
    const disk = {
      exists: () => {
        asked += 1
        noteDiskConsulted(() => false, false)
        return false
      },
    }
    // A written config below a folder that may be a bare repository asks the disk each time.
    for (let run = 0; run < 2; run += 1)
      checkCommandPaths('cp', ['a', 'bare/config'], scope, names, disk, verdicts)
    expect(asked).toBe(2)
  })
})
