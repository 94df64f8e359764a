// `@plan/render`: a compiled plan as text, Mermaid, Graphviz DOT, or a view model for a UI.
// Runtime-neutral: no Node.js built-in, no zod.
export type { PlanView, RenderOptions, StepMark, StepView } from './plan-view.js'
export { planView } from './plan-view.js'
export { toDot } from './to-dot.js'
export { toMermaid } from './to-mermaid.js'
export type { TextRenderOptions } from './to-text.js'
export { toText } from './to-text.js'
