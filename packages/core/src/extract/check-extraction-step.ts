import { isPlainObject } from '@plan/json'
import { createIssue, isRecord, type PlanIssue } from '@plan/shell/common'
import { readExtractionSchema } from './read-extraction-schema.js'

/**
 * Whether a schema is an enum of `$ref`-named values (`{ "type": "enum", "values": { "$ref":
 * "list.output.names" } }`): an earlier step fixes the set; trusted only if that step's output was.
 */
export function isBoundEnum(schema: unknown): boolean {
  if (!isRecord(schema)) return false
  const keys = Object.keys(schema)
  return (
    schema.type === 'enum' &&
    keys.length === 2 &&
    keys.includes('values') &&
    isPlainObject(schema.values) &&
    Object.hasOwn(schema.values, '$ref')
  )
}

/**
 * The issue of an extraction step whose `schema` argument is not a narrow extraction schema
 * written into the plan (a `$ref` as the whole schema is refused: its shape must be known when
 * the plan is approved; an enum's values may come from an earlier step, see {@link isBoundEnum}).
 */
export function checkExtractionStep(
  args: unknown,
  path: readonly (string | number)[],
  stepId: string | undefined,
): PlanIssue | undefined {
  const schema =
    typeof args === 'object' && args !== null && 'schema' in args ? args.schema : undefined
  if (readExtractionSchema(schema) !== undefined || isBoundEnum(schema)) return undefined
  return createIssue(
    'invalid_arguments',
    'An extraction step needs a narrow `schema` written into the plan.',
    [...path, 'args', 'schema'],
    'Use {"type":"enum","values":[…]} (values may be {"$ref":"<step>.output.<field>"}), {"type":"number"}, {"type":"boolean"}, {"type":"string","pattern":"…"}, {"type":"path"}, or {"type":"array","items":…} of one of these.',
    stepId,
  )
}
