import type { Tracer } from '@opentelemetry/api'

type TracingApi = typeof import('@opentelemetry/api')

/** The instrumentation scope of every span @plan emits, whichever package emits it. */
export const TRACER_NAME = '@plan/core'

// Where every copy of @opentelemetry/api 1.x keeps its registered providers.
const API_GLOBALS = Symbol.for('opentelemetry.js.api.1')

let api: TracingApi | undefined
let loading: Promise<void> | undefined

/** True once some code of the process has used the OpenTelemetry API (registered a provider). */
function apiInUse(): boolean {
  return Reflect.get(globalThis, API_GLOBALS) !== undefined
}

/**
 * Loads `@opentelemetry/api` when the application uses OpenTelemetry, so that a process without
 * it never pays the API's load (it is about as long as a compiler's). Resolves at once otherwise.
 */
export function loadTracingApi(): Promise<void> {
  if (api !== undefined || !apiInUse()) return Promise.resolve()
  loading ??= import('@opentelemetry/api').then(
    (module) => {
      api = module
    },
    () => undefined,
  )
  return loading
}

/** The tracer and the API, or undefined while the API is not loaded (then it starts loading). */
export function planTracer(): { readonly tracer: Tracer; readonly api: TracingApi } | undefined {
  if (api === undefined) {
    // The common case, an application without OpenTelemetry, costs one global lookup.
    if (apiInUse()) void loadTracingApi()
    return undefined
  }
  return { tracer: api.trace.getTracer(TRACER_NAME), api }
}
