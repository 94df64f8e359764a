import { sha256Hex } from '@plan/json'
import { describe, expect, it } from 'vitest'
import type { CompiledPlan } from '../types/compiled-plan.js'
import { turnSignature } from './call-key.js'

function turn(...calls: [id: string, tool: string, args: Record<string, unknown>][]): CompiledPlan {
  return { steps: calls.map(([id, tool, args]) => ({ id, tool, args })) } as unknown as CompiledPlan
}

describe('turnSignature', () => {
  it('should give the same calls with other ids and other key orders the same signature', () => {
    const first = turn(['c1', 'echo', { text: 'hi', n: 1 }], ['c2', 'echo', { text: 'yo' }])
    const again = turn(['x9', 'echo', { n: 1, text: 'hi' }], ['x8', 'echo', { text: 'yo' }])
    expect(turnSignature(again)).toBe(turnSignature(first))
  })

  it('should tell apart other tools, arguments and orders of calls', () => {
    const signature = turnSignature(
      turn(['a', 'echo', { text: 'hi' }], ['b', 'echo', { text: 'yo' }]),
    )
    const others = [
      turn(['a', 'echo', { text: 'hi' }]),
      turn(['a', 'echo', { text: 'yo' }], ['b', 'echo', { text: 'hi' }]),
      turn(['a', 'shout', { text: 'hi' }], ['b', 'echo', { text: 'yo' }]),
      turn(['a', 'echo', { text: 'hi\n' }], ['b', 'echo', { text: 'yo' }]),
    ]
    for (const other of others) expect(turnSignature(other)).not.toBe(signature)
  })

  it('should be the canonical text of a short turn and the SHA-256 of a long one', () => {
    expect(turnSignature(turn(['c1', 'echo', { text: 'hi' }]))).toBe('["echo",{"text":"hi"}]')
    const long = 'x'.repeat(300)
    expect(turnSignature(turn(['c1', 'echo', { text: long }]))).toBe(
      sha256Hex(`["echo",{"text":"${long}"}]`),
    )
  })
})
