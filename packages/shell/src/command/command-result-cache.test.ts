import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CommandResultCache } from './command-result-cache.js'

describe('CommandResultCache', () => {
  it('should return what was stored, and undefined for a command never stored', () => {
    const cache = new CommandResultCache<string>(4)
    cache.set('git status', 'a')
    expect(cache.get('git status')).toBe('a')
    expect(cache.get('git diff')).toBeUndefined()
  })

  it('should keep an entry used since the last turn, and drop one unused for two turns', () => {
    const cache = new CommandResultCache<number>(2)
    cache.set('kept', 1)
    cache.set('dropped', 2)
    cache.set('c', 3) // young {c}, old {kept, dropped}
    expect(cache.get('kept')).toBe(1) // promoted: young {c, kept}
    cache.set('d', 4) // young {d}, old {c, kept}
    cache.set('e', 5) // young {d, e}
    cache.set('f', 6) // young {f}, old {d, e}
    expect(cache.get('dropped')).toBeUndefined()
    expect(cache.get('kept')).toBeUndefined()
    expect(cache.get('e')).toBe(5)
  })

  it('should hold at most twice its generation, and agree with a plain map on every hit', () => {
    const command = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', '__proto__', '')
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(command, { maxLength: 60 }),
        (size, commands) => {
          const cache = new CommandResultCache<string>(size)
          for (const name of commands) {
            const found = cache.get(name)
            if (found === undefined) cache.set(name, `result of ${name}`)
            else expect(found).toBe(`result of ${name}`)
            expect(cache.size).toBeLessThanOrEqual(2 * size)
          }
        },
      ),
    )
  })
})
