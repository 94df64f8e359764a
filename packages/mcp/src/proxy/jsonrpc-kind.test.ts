import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCMessageSchema,
} from '@modelcontextprotocol/sdk/types.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  deserializeLine,
  isNotification,
  isRequest,
  isResultResponse,
  readMessage,
} from './jsonrpc-kind.js'

/** Messages near the edges of each schema: extra members, odd ids, `_meta`, `__proto__`. */
const EDGE_CASES: readonly unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read', arguments: {} } },
  { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
  { jsonrpc: '2.0', id: 1.5, method: 'tools/call' },
  { jsonrpc: '2.0', id: 2 ** 60, method: 'tools/call' },
  { jsonrpc: '2.0', id: null, method: 'tools/call' },
  { jsonrpc: '2.0', id: Number.NaN, method: 'tools/call' },
  { jsonrpc: '1.0', id: 1, method: 'tools/call' },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', extra: true },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: [] },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: null },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: undefined },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: { progressToken: 7 } } },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: { progressToken: {} } } },
  { jsonrpc: '2.0', id: 1, method: 7 },
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { _meta: 'x' } },
  { jsonrpc: '2.0', id: 1, result: { content: [] } },
  { jsonrpc: '2.0', id: 1, result: [] },
  { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: 1 } } },
  { jsonrpc: '2.0', id: 1, result: { _meta: 5 } },
  { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } },
  { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'bad' } },
  { jsonrpc: '2.0', error: { code: 1.5, message: 'bad' } },
  JSON.parse('{"jsonrpc":"2.0","id":1,"method":"m","__proto__":{"x":1}}'),
  JSON.parse('{"jsonrpc":"2.0","id":1,"method":"m","params":{"__proto__":{"x":1}}}'),
  JSON.parse('{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"x":1}}}'),
  Object.assign(Object.create({ jsonrpc: '2.0' }), { id: 1, method: 'm' }),
  Object.assign(Object.create(null), { jsonrpc: '2.0', id: 1, method: 'm' }),
  [],
  null,
  'text',
  7,
]

const member = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.constant([]),
  fc.dictionary(fc.constantFrom('_meta', 'name', 'x', '__proto__'), fc.jsonValue(), {
    maxKeys: 3,
  }),
)

/** Objects built from the members of every kind, each present or not, with any value. */
const messages = fc.record(
  {
    jsonrpc: fc.constantFrom('2.0', '1.0', 2),
    id: fc.oneof(fc.integer(), fc.string(), fc.double(), fc.constant(null)),
    method: fc.oneof(fc.string(), fc.integer()),
    params: member,
    result: member,
    error: member,
    other: member,
  },
  { requiredKeys: [] },
)

function sameAsTheSdk(message: unknown): void {
  expect(isRequest(message)).toBe(isJSONRPCRequest(message))
  expect(isNotification(message)).toBe(isJSONRPCNotification(message))
  expect(isResultResponse(message)).toBe(isJSONRPCResultResponse(message))
  const parsed = JSONRPCMessageSchema.safeParse(message)
  expect(readMessage(message)).toEqual(parsed.success ? parsed.data : undefined)
}

describe('isRequest, isNotification, isResultResponse, readMessage', () => {
  it('should answer as the SDK schemas do at the edges of each kind', () => {
    for (const message of EDGE_CASES) sameAsTheSdk(message)
  })

  it('should answer as the SDK schemas do for generated messages', () => {
    fc.assert(fc.property(messages, sameAsTheSdk), { numRuns: 2000 })
  })

  it('should take a plain message as it is and leave the rest to the schema', () => {
    const plain = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read' } }
    expect(readMessage(plain)).toBe(plain)
    const withMeta = { jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: { progressToken: 1 } } }
    expect(readMessage(withMeta)).not.toBe(withMeta)
    expect(readMessage(withMeta)).toEqual(withMeta)
  })
})

describe('deserializeLine', () => {
  it('should read a plain line and throw for text that is not JSON or not JSON-RPC', () => {
    expect(deserializeLine('{"jsonrpc":"2.0","id":3,"result":{}}')).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: {},
    })
    expect(() => deserializeLine('{"jsonrpc":')).toThrow(SyntaxError)
    expect(() => deserializeLine('{"jsonrpc":"2.0","id":3}')).toThrow()
  })
})
