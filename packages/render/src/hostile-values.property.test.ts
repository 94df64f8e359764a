import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { planView } from './plan-view.js'
import { toDot } from './to-dot.js'
import { toMermaid } from './to-mermaid.js'
import { toText } from './to-text.js'

function boom(): never {
  throw new Error('hostile getter')
}

/** Values that break naive code: throwing getters and traps, revoked proxies, cycles. */
const makers: readonly (() => unknown)[] = [
  () => Object.defineProperty({}, 'steps', { get: boom, enumerable: true }),
  () => Object.defineProperty({ id: 'a', tool: 'echo' }, 'args', { get: boom, enumerable: true }),
  () => new Proxy({}, { get: boom, has: boom, ownKeys: boom, getPrototypeOf: boom }),
  () => new Proxy([], { get: boom, has: boom, ownKeys: boom, getPrototypeOf: boom }),
  () => {
    const revocable = Proxy.revocable({}, {})
    revocable.revoke()
    return revocable.proxy
  },
  () => {
    const cycle: Record<string, unknown> = { id: 'a', tool: 'echo' }
    cycle.args = { text: 'x', data: cycle }
    return cycle
  },
  () => ({ toJSON: boom, id: 'a', tool: 'echo' }),
  () => 10n,
  () => Symbol('s'),
  () => Object.create(null),
]

// Indices, not values: fast-check itself would trip over a hostile value it inspects.
const hostile = fc.nat({ max: makers.length - 1 })
const places = fc.constantFrom('plan', 'steps', 'step', 'id', 'tool', 'args', 'deps')

/** A plan where the part `where` is replaced by a hostile value. */
function planWith(where: string, value: unknown): unknown {
  const step: Record<string, unknown> = { id: 'a', tool: 'echo', args: { text: 'ok' } }
  if (where === 'plan') return value
  if (where === 'steps') return { steps: value }
  if (where === 'step') return { steps: [value] }
  if (where === 'deps') step.depends_on = value
  else step[where] = value
  return { steps: [step] }
}

describe('the renderers (hostile values)', () => {
  it('should render any plan, however hostile, as text, never a throw', () => {
    fc.assert(
      fc.property(hostile, places, (index, where) => {
        const plan = planWith(where, (makers[index] as () => unknown)())
        expect(typeof toText(plan)).toBe('string')
        expect(toMermaid(plan).startsWith('flowchart')).toBe(true)
        expect(toDot(plan).startsWith('digraph')).toBe(true)
        expect(planView(plan).approved).toBe(false)
      }),
      { numRuns: 200 },
    )
  })
})
