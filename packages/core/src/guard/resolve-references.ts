import { defineValue } from '@plan/json'
import { itemAt } from '@plan/shell/common'
import type { CompiledStep } from '../types/compiled-plan.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import type { ResolveArgsResult } from '../types/plan-guard.js'
import { copyJson } from '../util/json-copy.js'

const CANONICAL_INDEX = /^(0|[1-9][0-9]{0,8})$/

/** The value at `field` of `output`; undefined when it has no such field. */
function readField(output: JsonValue, field: readonly string[]): JsonValue | undefined {
  let current: JsonValue = output
  for (const part of field) {
    if (Array.isArray(current)) {
      if (!CANONICAL_INDEX.test(part)) return undefined
      const item: JsonValue | undefined = current[Number(part)]
      if (item === undefined) return undefined
      current = item
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, part)) {
      current = current[part] as JsonValue
    } else {
      return undefined
    }
  }
  return current
}

/**
 * Replaces every `$ref` of a step by a fresh copy of the referenced output (`outputs`: of finished
 * steps); a missing output or field is an `invalid_reference` issue. A step without references
 * resolves to its own arguments when they are frozen (a compiled plan's are), else to a copy.
 */
export function resolveReferences(
  step: CompiledStep,
  outputs: ReadonlyMap<string, JsonValue>,
): ResolveArgsResult {
  // Frozen: shared as it is, nothing can change it.
  if (step.references.length === 0 && Object.isFrozen(step.args))
    return { success: true, args: step.args as JsonObject }
  const copied = copyJson(step.args)
  if (!copied.ok) throw new TypeError(`Planned arguments of step ${step.id} are not JSON.`)
  const args = copied.value as JsonObject
  for (const reference of step.references) {
    const fail = (message: string): ResolveArgsResult => ({
      success: false,
      issue: {
        code: 'invalid_reference',
        message,
        path: [...reference.path],
        stepId: step.id,
        hint: 'Refer only to fields that the referenced step returns.',
      },
    })
    const output = outputs.get(reference.stepId)
    if (output === undefined)
      return fail(
        `The output of step ${JSON.stringify(reference.stepId)} is not available (it has not finished, or it was not JSON).`,
      )
    const found = readField(output, reference.field)
    const name = [reference.stepId, 'output', ...reference.field].join('.')
    if (found === undefined)
      return fail(
        `The output of step ${JSON.stringify(reference.stepId)} has no field ${JSON.stringify(name)}.`,
      )
    const value = copyJson(found)
    if (!value.ok) return fail(`The value of ${JSON.stringify(name)} is not JSON.`)
    if (reference.path.length === 0)
      return fail('A reference cannot replace the whole arguments object.')
    let target: JsonValue | undefined = args
    for (const segment of reference.path.slice(0, -1))
      target =
        typeof target === 'object' && target !== null && Object.hasOwn(target, segment)
          ? (target as Record<string | number, JsonValue>)[segment]
          : undefined
    if (typeof target !== 'object' || target === null)
      return fail('The reference does not point into the planned arguments.')
    defineValue(target, itemAt(reference.path, reference.path.length - 1), value.value)
  }
  return { success: true, args }
}
