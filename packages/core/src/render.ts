// `@plan/core/render`: a compiled plan as text, Mermaid, Graphviz DOT, or a view model for a
// UI. Kept apart from the main entry, which holds what a guarded run needs.
export type { PlanView, RenderOptions, StepMark, StepView } from './render/plan-view.js'
export { planView } from './render/plan-view.js'
export { toDot } from './render/to-dot.js'
export { toMermaid } from './render/to-mermaid.js'
export type { TextRenderOptions } from './render/to-text.js'
export { toText } from './render/to-text.js'
