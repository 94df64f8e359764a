import { formatIssues, type PlanIssue } from '@plan/core'
import type { Instructions } from 'ai'

/** The step's instructions with the reason the guard stopped the run appended. */
export function lastWordInstructions(
  instructions: Instructions | undefined,
  stop: PlanIssue,
): Instructions {
  const text = `@plan stopped this run; no tool will run any more.\n${formatIssues([stop])}\nTell the user what was done, what is left, and why the run stopped.`
  if (instructions === undefined) return text
  if (typeof instructions === 'string')
    return instructions === '' ? text : `${instructions}\n\n${text}`
  const list = Array.isArray(instructions) ? instructions : [instructions]
  return [...list, { role: 'system', content: text }]
}
