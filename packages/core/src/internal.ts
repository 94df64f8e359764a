// `@plan/core/internal`: building blocks that the @plan adapters and benchmarks share with
// core. Not a public API: it follows core's version exactly and may change in any release.
export { countOption } from './adapter/count-option.js'
export { lastWordText, runEndedText } from './adapter/refusal-text.js'
export type { GraphAnalysis } from './compile/analyze-graph.js'
export { analyzeGraph } from './compile/analyze-graph.js'
export { loadSavedState } from './durable/load-saved-state.js'
export { formatPath } from './issues/format-issues.js'
export type { DecisionSource } from './telemetry/decision-spans.js'
export { traceCallDecision } from './telemetry/decision-spans.js'
export { loadTracingApi, TRACER_NAME } from './telemetry/tracing-api.js'
export { canonicalJson, hashJson, sha256 } from './util/canonical-json.js'
export { errorMessage } from './util/error-message.js'
