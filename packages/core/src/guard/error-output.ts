import type { JsonValue } from '../types/json-value.js'
import { outputToJson } from '../util/json-copy.js'
import { MAX_OUTPUT_BYTES } from './max-output.js'

/** Whether `error`'s own fields, as JSON, are larger than the guard keeps: a proxy shows them whole. */
function fieldsTooLarge(error: object): boolean {
  let text: string | undefined
  try {
    text = JSON.stringify(error)
  } catch {
    return false
  }
  return text !== undefined && text.length > MAX_OUTPUT_BYTES
}

/**
 * What a model may be shown of a tool's (or resource read's) error, as it enters the trust labels:
 * the message whole (an adapter shows it all, not the audit's 500 characters) and the error's own
 * enumerable fields, such as an MCP error's `code` and `data`, that a proxy forwards to the client.
 * A thrown non-error is taken as an output is. Undefined (as for non-JSON output: every later text
 * is held for untrusted) when the message or fields are larger than the guard keeps, or unreadable.
 * Fields that are not JSON at all (a client's cyclic request objects) cannot have come over
 * JSON-RPC and no adapter shows them: the message stands alone.
 */
export function errorOutput(error: unknown): JsonValue | undefined {
  try {
    const message =
      typeof error === 'object' && error !== null ? (error as Error).message : undefined
    const fields = outputToJson(error, MAX_OUTPUT_BYTES)
    if (typeof message !== 'string') return fields.ok ? fields.value : undefined
    if (message.length > MAX_OUTPUT_BYTES) return undefined
    if (fields.ok)
      return Object.keys(fields.value ?? {}).length > 0 ? [message, fields.value] : message
    return fieldsTooLarge(error as object) ? undefined : message
  } catch {
    return undefined
  }
}
