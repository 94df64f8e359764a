import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { McpCallGuard } from '../guard/create-mcp-call-guard.js'
import { MessageRouter } from './route-messages.js'

type Id = number | string

type Step =
  | { readonly kind: 'call' | 'other' | 'cancel'; readonly id: Id }
  | { readonly kind: 'answer'; readonly pick: number }
  | { readonly kind: 'bogus'; readonly id: Id }
  | { readonly kind: 'settle' }

const ids = fc.constantFrom<Id>(1, 2, 3, '1', '2')

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('call' as const, 'other' as const, 'cancel' as const),
    id: ids,
  }),
  fc.record({ kind: fc.constant('answer' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('bogus' as const), id: ids }),
  fc.constant({ kind: 'settle' as const }),
)

/** One allowed call's decision: how often it was ended, and the results it was given. */
interface Decision {
  ends: number
  readonly results: unknown[]
}

/** A guard that allows every call after a turn of the event loop, and records how each ended. */
function recordingGuard(decisions: Decision[]): McpCallGuard {
  const authorize = async (_tool: string, args: unknown) => {
    await Promise.resolve()
    const decision: Decision = { ends: 0, results: [] }
    decisions.push(decision)
    return {
      allowed: true as const,
      stepId: `call-${decisions.length}`,
      serverTool: 'tool',
      args,
      finish: (result: unknown) => {
        decision.ends += 1
        decision.results.push(result)
        return result
      },
      fail: () => {
        decision.ends += 1
      },
    }
  }
  return { authorize, isToolAllowed: () => true } as unknown as McpCallGuard
}

function transport(sent: JSONRPCMessage[]): Transport {
  return {
    start: async () => {},
    close: async () => {},
    send: async (message) => {
      sent.push(message)
    },
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

/** Plays the steps: the client's requests and cancellations, the server's answers to what it got. */
async function play(steps: readonly Step[]) {
  const decisions: Decision[] = []
  const toClient: JSONRPCMessage[] = []
  const toServer: JSONRPCMessage[] = []
  const router = new MessageRouter(
    recordingGuard(decisions),
    transport(toClient),
    transport(toServer),
    () => {},
  )
  const answered = new Set<JSONRPCMessage>()
  let serial = 0
  for (const next of steps) {
    serial += 1
    if (next.kind === 'call')
      router.fromClient({
        jsonrpc: '2.0',
        id: next.id,
        method: 'tools/call',
        params: { name: 'tool', arguments: { serial } },
      })
    else if (next.kind === 'other')
      router.fromClient({
        jsonrpc: '2.0',
        id: next.id,
        method: 'completion/complete',
        params: { serial },
      })
    else if (next.kind === 'cancel')
      router.fromClient({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: next.id },
      })
    else if (next.kind === 'bogus') {
      router.fromServer({ jsonrpc: '2.0', id: next.id, result: { bogus: serial } })
      // An answer with a waiting request's id is its answer: JSON-RPC links the two by id only,
      // so a second answer after the client reused the id would answer the newer request.
      for (const message of toServer)
        if (isJSONRPCRequest(message) && message.id === next.id) answered.add(message)
    } else if (next.kind === 'answer') {
      // the server answers each request it got once, in any order
      const waiting = toServer.filter(
        (message): message is JSONRPCRequest => isJSONRPCRequest(message) && !answered.has(message),
      )
      const request = waiting[next.pick % Math.max(waiting.length, 1)]
      if (request !== undefined) {
        answered.add(request)
        const result = { answer: serial, call: request.method === 'tools/call' }
        router.fromServer({ jsonrpc: '2.0', id: request.id, result })
      }
    } else await settle()
  }
  await settle()
  router.serverClosed()
  return { decisions, toClient, answers: answered.size }
}

function forwardedResults(toClient: readonly JSONRPCMessage[]): Record<string, unknown>[] {
  return toClient.flatMap((message) => (isJSONRPCResultResponse(message) ? [message.result] : []))
}

describe('MessageRouter (generated sessions)', () => {
  it('should forward an answer to a guarded call only once recorded, and end each call once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const { decisions, toClient } = await play(steps)
        const recorded = new Set(decisions.flatMap((decision) => decision.results))
        const forwarded = forwardedResults(toClient)
        expect(new Set(forwarded).size).toBe(forwarded.length)
        for (const result of forwarded) if (result.call === true) expect(recorded).toContain(result)
        for (const decision of decisions) expect(decision.ends).toBe(1)
      }),
      { numRuns: 300 },
    )
  })

  it('should forward every answer, recorded first, when ids are not reused or cancelled', async () => {
    const unique = fc
      .array(step, { maxLength: 40 })
      .map((steps) =>
        steps.map(
          (next, index): Step =>
            next.kind === 'call' || next.kind === 'other' ? { kind: next.kind, id: index } : next,
        ),
      )
      .filter((steps) => steps.every((next) => next.kind !== 'cancel' && next.kind !== 'bogus'))
    await fc.assert(
      fc.asyncProperty(unique, async (steps) => {
        const { decisions, toClient, answers } = await play(steps)
        const forwarded = forwardedResults(toClient)
        const recorded = decisions.flatMap((decision) => decision.results)
        expect(toClient.filter((message) => !isJSONRPCResultResponse(message))).toEqual([])
        // The server may answer in any order: the same results, each recorded, in any order.
        const bySerial = (left: unknown, right: unknown) =>
          (left as { answer: number }).answer - (right as { answer: number }).answer
        expect(forwarded.filter((result) => result.call === true).sort(bySerial)).toEqual(
          [...recorded].sort(bySerial),
        )
        expect(forwarded).toHaveLength(answers)
      }),
      { numRuns: 200 },
    )
  })
})
