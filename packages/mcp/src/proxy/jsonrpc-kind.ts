import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
} from '@modelcontextprotocol/sdk/types.js'

// The three message shapes a proxy meets on every call, recognised without a schema parse. Each
// `plain…` test answers true only for a message the SDK's schema accepts as well (a plain object
// with exactly the members of its kind, `jsonrpc: "2.0"`, a string or safe-integer id, and no
// `_meta` or `__proto__` member, whose shapes only the schema knows); anything else is answered
// by the SDK's own schema, so the answer never differs from it.

type Members = ReadonlySet<string>

const REQUEST_MEMBERS: Members = new Set(['jsonrpc', 'id', 'method', 'params'])
const NOTIFICATION_MEMBERS: Members = new Set(['jsonrpc', 'method', 'params'])
const RESULT_MEMBERS: Members = new Set(['jsonrpc', 'id', 'result'])

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/** Only the listed members, each own and enumerable, `jsonrpc` among them as "2.0". */
function hasOnly(value: Record<string, unknown>, members: Members): boolean {
  if (value.jsonrpc !== '2.0') return false
  for (const key in value) if (!members.has(key) || !Object.hasOwn(value, key)) return false
  return true
}

/** An object member whose own members the schema passes through unread (no `_meta`). */
function isOpenObject(value: unknown): boolean {
  return (
    isPlainObject(value) && !Object.hasOwn(value, '_meta') && !Object.hasOwn(value, '__proto__')
  )
}

function isPlainId(value: unknown): boolean {
  return typeof value === 'string' || Number.isSafeInteger(value)
}

/** Absent, or an object the schema passes through unread. */
function isOptionalOpenObject(value: Record<string, unknown>, key: string): boolean {
  return !Object.hasOwn(value, key) || isOpenObject(value[key])
}

function plainRequest(value: unknown): value is JSONRPCRequest {
  return (
    isPlainObject(value) &&
    hasOnly(value, REQUEST_MEMBERS) &&
    isPlainId(value.id) &&
    typeof value.method === 'string' &&
    isOptionalOpenObject(value, 'params')
  )
}

function plainNotification(value: unknown): value is JSONRPCNotification {
  return (
    isPlainObject(value) &&
    hasOnly(value, NOTIFICATION_MEMBERS) &&
    typeof value.method === 'string' &&
    isOptionalOpenObject(value, 'params')
  )
}

function plainResult(value: unknown): value is JSONRPCResultResponse {
  return (
    isPlainObject(value) &&
    hasOnly(value, RESULT_MEMBERS) &&
    isPlainId(value.id) &&
    isOpenObject(value.result)
  )
}

/** `isJSONRPCRequest` of the SDK, without its schema parse for a plain request. */
export function isRequest(value: unknown): value is JSONRPCRequest {
  return plainRequest(value) || isJSONRPCRequest(value)
}

/** `isJSONRPCNotification` of the SDK, without its schema parse for a plain notification. */
export function isNotification(value: unknown): value is JSONRPCNotification {
  return plainNotification(value) || isJSONRPCNotification(value)
}

/** `isJSONRPCResultResponse` of the SDK, without its schema parse for a plain result. */
export function isResultResponse(value: unknown): value is JSONRPCResultResponse {
  return plainResult(value) || isJSONRPCResultResponse(value)
}

/**
 * A parsed line as a JSON-RPC message, as `JSONRPCMessageSchema.safeParse` judges it: a plain
 * request, notification or result is taken as it is (the schema would copy it member for
 * member), anything else goes through the schema. Undefined when it is no JSON-RPC message.
 */
export function readMessage(value: unknown): JSONRPCMessage | undefined {
  if (plainRequest(value) || plainNotification(value) || plainResult(value)) return value
  const parsed = JSONRPCMessageSchema.safeParse(value)
  return parsed.success ? parsed.data : undefined
}

/**
 * `deserializeMessage` of the SDK's stdio transport: one line of JSON as a JSON-RPC message,
 * without the schema parse for a plain request, notification or result; throws as it does
 * (a `SyntaxError` for text that is not JSON, the schema's error for no JSON-RPC message).
 */
export function deserializeLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line)
  if (plainRequest(value) || plainNotification(value) || plainResult(value)) return value
  return JSONRPCMessageSchema.parse(value)
}
