import type { JsonObject } from './json-value.js'

/** What a tool function receives besides its arguments. */
export interface ToolContext {
  /** Aborted when the step times out, the run is aborted, or fail-fast stops the run. */
  readonly signal: AbortSignal
  readonly stepId: string
}

/** A tool implementation: JSON arguments in, a JSON-able value (or a promise of one) out. */
export type ToolFunction = (args: JsonObject, context: ToolContext) => unknown
