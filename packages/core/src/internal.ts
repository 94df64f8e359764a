// `@plan/core/internal`: building blocks that the @plan adapters and benchmarks share with
// core. Not a public API: it follows core's version exactly and may change in any release.
export { countOption } from './adapter/count-option.js'
export type { GraphAnalysis } from './compile/analyze-graph.js'
export { analyzeGraph } from './compile/analyze-graph.js'
export { loadSavedState } from './durable/load-saved-state.js'
export type { RunWriteDecision, StoredRunHead } from './durable/run-writer.js'
export { createRunWriter, runTakenError, runWriteDecision } from './durable/run-writer.js'
export { formatPath } from './issues/format-issues.js'
export { canonicalJson, hashJson, sha256 } from './util/canonical-json.js'
export { errorMessage } from './util/error-message.js'
