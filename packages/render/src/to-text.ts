import { formatPath, replaceUnsafeCharacters } from '@plan/shell/common'
import {
  type PlanView,
  planView,
  type RenderOptions,
  type StepMark,
  summarizeArgs,
} from './plan-view.js'

/** Options for {@link toText}. */
export interface TextRenderOptions extends RenderOptions {
  /** Use ANSI colours. Default false. */
  readonly color?: boolean
}

const SYMBOL: Record<StepMark, string> = {
  approved: '✓',
  done: '✓',
  rejected: '✗',
  denied: '✗',
  failed: '✗',
  pending: '·',
  running: '▸',
  skipped: '-',
}

const COLOR: Record<StepMark, string> = {
  approved: '32',
  done: '32',
  rejected: '31',
  denied: '31',
  failed: '31',
  pending: '90',
  running: '36',
  skipped: '33',
}

// Strip control characters so a hostile tool name or argument cannot drive the terminal.
function clean(value: string): string {
  return replaceUnsafeCharacters(value)
}

/**
 * Renders a plan as an execution tree a person can read in a terminal: steps by level, what
 * each depends on, and the offending steps marked with their issues.
 *
 * @example
 * ```ts
 * console.log(toText(compiler.compile(plan)))
 * const result = compiler.validate(plan)
 * if (!result.success) console.log(toText(plan, { issues: result.issues }))
 * ```
 */
export function toText(plan: unknown, options: TextRenderOptions = {}): string {
  const view: PlanView = planView(plan, options)
  const paint = (mark: StepMark, value: string) =>
    options.color === true ? `\u001b[${COLOR[mark]}m${value}\u001b[0m` : value
  const lines: string[] = []
  const verdict = view.approved ? 'approved' : 'rejected'
  const levels = new Map<number, typeof view.steps>()
  for (const step of view.steps) levels.set(step.level, [...(levels.get(step.level) ?? []), step])
  const levelCount = [...levels.keys()].filter((level) => level >= 0).length
  const hash = view.hash === undefined ? '' : ` ${view.hash.slice(0, 12)}`
  lines.push(
    `plan${hash}: ${paint(view.approved ? 'approved' : 'rejected', verdict)} · ${view.steps.length} step${view.steps.length === 1 ? '' : 's'} · ${levelCount} level${levelCount === 1 ? '' : 's'}`,
  )
  const keys = [...levels.keys()].sort((left, right) =>
    left < 0 ? 1 : right < 0 ? -1 : left - right,
  )
  for (const level of keys) {
    lines.push(level < 0 ? 'unordered (cycle or missing dependency)' : `level ${level}`)
    for (const step of levels.get(level) ?? []) {
      const args = options.showArgs === false ? '' : summarizeArgs(step.args)
      const deps = step.dependsOn.length === 0 ? '' : `  ← ${step.dependsOn.join(', ')}`
      lines.push(
        `  ${paint(step.mark, SYMBOL[step.mark])} ${clean(step.id)}  ${clean(step.tool)}${args === '' ? '' : `  ${clean(args)}`}${clean(deps)}${step.mark === 'approved' || step.mark === 'rejected' ? '' : `  [${step.mark}]`}`,
      )
      for (const found of step.issues) {
        lines.push(
          `      ${paint('rejected', found.code)} at ${clean(formatPath(found.path))}: ${clean(found.message)}`,
        )
        if (found.hint !== undefined) lines.push(`      hint: ${clean(found.hint)}`)
      }
    }
  }
  for (const cycle of view.cycles) lines.push(`cycle: ${clean(cycle.join(' → '))}`)
  for (const found of view.planIssues) {
    lines.push(
      `${paint('rejected', found.code)} at ${clean(formatPath(found.path))}: ${clean(found.message)}`,
    )
    if (found.hint !== undefined) lines.push(`  hint: ${clean(found.hint)}`)
  }
  return lines.join('\n')
}
