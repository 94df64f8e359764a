import { replaceUnsafeCharacters } from '@plan/shell/common'
import { planView, type RenderOptions, type StepMark, summarizeArgs } from './plan-view.js'

// Mermaid labels are quoted; these characters are written as entity codes so no label can
// close its quotes or inject directives.
function label(value: string): string {
  return replaceUnsafeCharacters(value).replace(
    /[^A-Za-z0-9 _.,:/=()\-+*?@]/g,
    (character) => `#${character.codePointAt(0)};`,
  )
}

const CLASS: Record<StepMark, string> = {
  approved: 'approved',
  done: 'done',
  rejected: 'rejected',
  denied: 'rejected',
  failed: 'rejected',
  pending: 'pending',
  running: 'pending',
  skipped: 'skipped',
}

/**
 * Renders a plan as a Mermaid flowchart (dependencies point to their dependents), with
 * rejected or failed steps styled in red.
 *
 * @example
 * ```ts
 * writeFileSync('plan.mmd', toMermaid(compiled))
 * ```
 */
export function toMermaid(plan: unknown, options: RenderOptions = {}): string {
  const view = planView(plan, options)
  const lines = ['flowchart TD']
  const keyOf = new Map<string, string>()
  for (const step of view.steps) if (!keyOf.has(step.id)) keyOf.set(step.id, step.key)
  for (const step of view.steps) {
    const args = options.showArgs === false ? '' : summarizeArgs(step.args, 48)
    const codes =
      step.issues.length === 0
        ? ''
        : `<br/>${[...new Set(step.issues.map((found) => found.code))].join(', ')}`
    lines.push(
      `  ${step.key}["${label(step.id)}: ${label(step.tool)}${args === '' ? '' : `<br/>${label(args)}`}${codes}"]:::${CLASS[step.mark]}`,
    )
  }
  for (const step of view.steps) {
    for (const dep of step.dependsOn) {
      const from = keyOf.get(dep)
      if (from !== undefined) lines.push(`  ${from} --> ${step.key}`)
    }
  }
  lines.push('  classDef approved fill:#e6f4ea,stroke:#2e7d32')
  lines.push('  classDef done fill:#c8e6c9,stroke:#2e7d32')
  lines.push('  classDef rejected fill:#fdecea,stroke:#c62828,stroke-width:2px')
  lines.push('  classDef pending fill:#f5f5f5,stroke:#9e9e9e')
  lines.push('  classDef skipped fill:#fff8e1,stroke:#f9a825,stroke-dasharray:4')
  return `${lines.join('\n')}\n`
}
