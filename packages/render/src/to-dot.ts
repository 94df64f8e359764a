import { replaceUnsafeCharacters } from '@plan/shell/common'
import { planView, type RenderOptions, type StepMark } from './plan-view.js'

function quoted(value: string): string {
  return `"${replaceUnsafeCharacters(value, ' ').replace(/[\\"]/g, (character) => `\\${character}`)}"`
}

const FILL: Record<StepMark, string> = {
  approved: '#e6f4ea',
  done: '#c8e6c9',
  rejected: '#fdecea',
  denied: '#fdecea',
  failed: '#fdecea',
  pending: '#f5f5f5',
  running: '#e3f2fd',
  skipped: '#fff8e1',
}

/**
 * Renders a plan as a Graphviz DOT digraph (dependencies point to their dependents).
 *
 * @example
 * ```ts
 * writeFileSync('plan.dot', toDot(compiled))
 * ```
 */
export function toDot(plan: unknown, options: RenderOptions = {}): string {
  const view = planView(plan, options)
  const lines = [
    'digraph plan {',
    '  rankdir=TB;',
    '  node [shape=box, style="rounded,filled", fontname="monospace"];',
  ]
  const keyOf = new Map<string, string>()
  for (const step of view.steps) if (!keyOf.has(step.id)) keyOf.set(step.id, step.key)
  for (const step of view.steps) {
    const codes =
      step.issues.length === 0
        ? ''
        : `\n${[...new Set(step.issues.map((found) => found.code))].join(', ')}`
    lines.push(
      `  ${step.key} [label=${quoted(`${step.id}: ${step.tool}${codes}`)}, fillcolor=${quoted(FILL[step.mark])}];`,
    )
  }
  for (const step of view.steps) {
    for (const dep of step.dependsOn) {
      const from = keyOf.get(dep)
      if (from !== undefined) lines.push(`  ${from} -> ${step.key};`)
    }
  }
  lines.push('}')
  return `${lines.join('\n')}\n`
}
