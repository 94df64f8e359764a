import { createIssue } from '../issues/create-issue.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { readExtractionSchema } from './read-extraction-schema.js'

/**
 * The issue of an extraction step whose `schema` argument is not a narrow extraction schema
 * written into the plan (a `$ref` is refused: the schema must be known when the plan is approved).
 */
export function checkExtractionStep(
  args: unknown,
  path: readonly (string | number)[],
  stepId: string | undefined,
): PlanIssue | undefined {
  const schema =
    typeof args === 'object' && args !== null ? (args as Record<string, unknown>).schema : undefined
  if (readExtractionSchema(schema) !== undefined) return undefined
  return createIssue(
    'invalid_arguments',
    'An extraction step needs a narrow `schema` written into the plan.',
    [...path, 'args', 'schema'],
    'Use {"type":"enum","values":[…]}, {"type":"number"}, {"type":"boolean"}, {"type":"string","pattern":"…"}, {"type":"path"}, or {"type":"array","items":…} of one of these.',
    stepId,
  )
}
