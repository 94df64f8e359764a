import type { PlanIssue } from '@plan/core'
import { lastWordText } from '@plan/core/adapter'
import type { Instructions } from 'ai'

/** The step's instructions with the reason the guard stopped the run appended. */
export function lastWordInstructions(
  instructions: Instructions | undefined,
  stop: PlanIssue,
): Instructions {
  const text = lastWordText([stop])
  if (instructions === undefined) return text
  if (typeof instructions === 'string')
    return instructions === '' ? text : `${instructions}\n\n${text}`
  const list = Array.isArray(instructions) ? instructions : [instructions]
  return [...list, { role: 'system', content: text }]
}
