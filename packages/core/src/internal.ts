// `@plan/core/internal`: what the private benchmarks measure directly (the graph analysis the
// compiler runs). No published package imports it (a test checks), and it has no stability
// promise: it may change in any release. Integrations use `@plan/core/adapter`.
export type { GraphAnalysis } from './compile/analyze-graph.js'
export { analyzeGraph } from './compile/analyze-graph.js'
