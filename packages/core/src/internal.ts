// `@plan/core/internal`: what private benchmarks measure (the compiler's graph analysis); unstable,
// imported by no published package (a test checks). Integrations use `@plan/core/adapter`.
export type { GraphAnalysis } from './compile/analyze-graph.js'
export { analyzeGraph } from './compile/analyze-graph.js'
