import type { Tracer } from '@opentelemetry/api'

type TracingApi = typeof import('@opentelemetry/api')

/** The instrumentation scope of every span @plan emits, whichever package emits it. */
export const TRACER_NAME = '@plan/core'

// Where every copy of @opentelemetry/api 1.x keeps its registered providers.
const API_GLOBALS = Symbol.for('opentelemetry.js.api.1')

// The global object, which may hold the API's registrations under its symbol.
const GLOBALS: object & { readonly [API_GLOBALS]?: unknown } = globalThis

let api: TracingApi | undefined
let loading: Promise<void> | undefined

/** True once some code of the process has used the OpenTelemetry API (registered a provider). */
function apiInUse(): boolean {
  // a plain read: `Reflect.get` on the global object costs several times more, on every decision
  return GLOBALS[API_GLOBALS] !== undefined
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

/** True once the API is loaded; while it is not, it starts loading when the application uses it. */
export function tracingApiLoaded(): boolean {
  if (api !== undefined) return true
  // The common case, an application without OpenTelemetry, costs one global lookup.
  if (apiInUse()) void loadTracingApi()
  return false
}

/** The tracer and the API, or undefined while the API is not loaded (then it starts loading). */
export function planTracer(): { readonly tracer: Tracer; readonly api: TracingApi } | undefined {
  if (!tracingApiLoaded() || api === undefined) return undefined
  return { tracer: api.trace.getTracer(TRACER_NAME), api }
}
