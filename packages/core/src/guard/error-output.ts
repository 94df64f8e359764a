import type { JsonValue } from '../types/json-value.js'
import { outputToJson } from '../util/json-copy.js'
import { MAX_OUTPUT_BYTES } from './max-output.js'

/**
 * What a model may be shown of a tool's (or a resource read's) error, as it enters the trust
 * labels: the message whole (an adapter shows it all, not the audit's 500 characters) and the
 * error's own enumerable fields, such as an MCP error's `code` and `data`, which a proxy forwards
 * to the client. A thrown value that is not an error is taken as an output is. Undefined (as for
 * output that is not JSON, so every later text is held for untrusted) when any of it cannot be
 * read as JSON: fields too large, cyclic or not JSON are not dropped for the message alone.
 */
export function errorOutput(error: unknown): JsonValue | undefined {
  try {
    const message =
      typeof error === 'object' && error !== null ? (error as Error).message : undefined
    const fields = outputToJson(error, MAX_OUTPUT_BYTES)
    if (typeof message !== 'string') return fields.ok ? fields.value : undefined
    if (message.length > MAX_OUTPUT_BYTES) return undefined
    const hasFields = Object.keys(error as object).length > 0
    if (!hasFields) return message
    return fields.ok ? [message, fields.value] : undefined
  } catch {
    return undefined
  }
}
