import { hasOwnKey, isPlainObject } from '@plan/json'
import { createIssue, describe, type PlanIssue } from '@plan/shell/common'
import { MAX_STEP_ID_LENGTH, matchesStepIdPattern } from '../schema/step-id.js'
import type { Path } from './argument-walk.js'
import type { StepIndex } from './step-index.js'
import { quote, stepPath } from './step-path.js'
import type { StepTable } from './step-table.js'

/** What reading a plan's steps writes to: the table, every issue, and the ids seen so far. */
export interface StepReading {
  readonly table: StepTable
  /** The path of the steps array inside the plan. */
  readonly base: Path
  readonly issues: PlanIssue[]
  /** Each well-formed id, with the index of the first step that has it. */
  readonly ids: StepIndex
  /** True for steps the compiler `JSON.parse`d (all plain): args frozen in place, not copied. */
  readonly owned?: boolean
}

type Step = Record<string, unknown>

/** The step's own `key`, never one from a polluted `Object.prototype`: judged as written. */
function own(raw: Step, key: string): unknown {
  return hasOwnKey(raw, key) ? raw[key] : undefined
}

const STEP_KEYS_HINT =
  'A step has only "id", "tool", "args", "depends_on" (or "dependsOn") and "description"; put tool arguments inside "args".'

/** The keys a step may have (a switch: no hashing of every key of every step). */
function isStepKey(key: string): boolean {
  switch (key) {
    case 'id':
    case 'tool':
    case 'args':
    case 'depends_on':
    case 'dependsOn':
    case 'description':
      return true
    default:
      return false
  }
}

/** Reports an `invalid_plan` issue. */
function invalid(reading: StepReading, path: Path, message: string, hint?: string, id?: string) {
  reading.issues.push(createIssue('invalid_plan', message, path, hint, id))
}

/** The step's id when it is well-formed; otherwise reports why and returns undefined. */
function readStepId(reading: StepReading, raw: Step, index: number): string | undefined {
  const rawId = raw.id
  const own = hasOwnKey(raw, 'id')
  const isString = typeof rawId === 'string'
  if (isString && own && rawId.length <= MAX_STEP_ID_LENGTH && matchesStepIdPattern(rawId))
    return rawId
  const path = stepPath(reading.base, index, 'id')
  if (!own) {
    const hint = `Give every step a unique string id, e.g. "step_${index + 1}".`
    invalid(reading, stepPath(reading.base, index), `Step ${index} has no id.`, hint)
  } else if (!isString) {
    const example =
      typeof rawId === 'number' && Number.isFinite(rawId) ? `"${rawId}"` : `"step_${index + 1}"`
    const message = `Step ids must be strings, got ${describe(rawId)}.`
    invalid(reading, path, message, `Use a string id such as ${example}.`)
  } else if (rawId.length === 0) {
    const hint = `Use a non-empty id such as "step_${index + 1}".`
    invalid(reading, path, 'Step id is empty.', hint)
  } else if (rawId.length > MAX_STEP_ID_LENGTH) {
    const message = `Step id is ${rawId.length} characters long (at most ${MAX_STEP_ID_LENGTH}).`
    invalid(reading, path, message, 'Use a short id such as "step_1".')
  } else {
    const message = `Step id ${quote(rawId)} may only contain letters, digits, "_" and "-".`
    invalid(reading, path, message, 'Use an id such as "read_config" or "step_1".')
  }
  return undefined
}

function checkStepKeys(reading: StepReading, raw: Step, index: number, id?: string): void {
  for (const key in raw) {
    if (!isStepKey(key) && hasOwnKey(raw, key)) {
      const message = `Unknown step key ${quote(key)}.`
      invalid(reading, stepPath(reading.base, index, key), message, STEP_KEYS_HINT, id)
    }
  }
}

/** Records a new id; reports a duplicate and returns false for it (it stays out of the graph). */
function registerStepId(reading: StepReading, id: string, index: number): boolean {
  const first = reading.ids.addIfAbsent(id, index)
  if (first === undefined) return true
  reading.issues.push(
    createIssue(
      'duplicate_step_id',
      `Step id ${quote(id)} is already used by step ${first}.`,
      stepPath(reading.base, index, 'id'),
      'Give every step a unique id.',
      id,
    ),
  )
  return false
}

function readStepTool(reading: StepReading, raw: Step, index: number, id?: string) {
  const rawTool = own(raw, 'tool')
  if (typeof rawTool === 'string' && rawTool.length > 0) return rawTool
  const message =
    rawTool === undefined
      ? 'Step has no tool.'
      : `Tool must be a non-empty string, got ${describe(rawTool)}.`
  const path = stepPath(reading.base, index, 'tool')
  invalid(reading, path, message, 'Name one of the tools the policy allows.', id)
  return undefined
}

function checkStepDescription(reading: StepReading, raw: Step, index: number, id?: string): void {
  const description = own(raw, 'description')
  if (description === undefined || typeof description === 'string') return
  const path = stepPath(reading.base, index, 'description')
  invalid(reading, path, 'Step description must be a string.', undefined, id)
}

/** Reads `depends_on` (or `dependsOn`) ids into the table; false when spelled `depends_on`. */
function readStepDependencies(reading: StepReading, raw: Step, index: number, id?: string) {
  const { base, table } = reading
  const hasSnake = hasOwnKey(raw, 'depends_on')
  const key = hasSnake ? 'depends_on' : 'dependsOn'
  if (hasSnake && hasOwnKey(raw, 'dependsOn')) {
    const path = stepPath(base, index, 'dependsOn')
    const message = 'Step has both "depends_on" and "dependsOn".'
    invalid(reading, path, message, 'Use one of them.', id)
  }
  const deps = hasSnake ? raw.depends_on : own(raw, 'dependsOn')
  if (deps === undefined || deps === null) return !hasSnake
  if (!Array.isArray(deps)) {
    const message = `"${key}" must be an array of step ids, got ${describe(deps)}.`
    invalid(reading, stepPath(base, index, key), message, 'Write e.g. ["step_1"].', id)
    return !hasSnake
  }
  const length = deps.length
  for (let position = 0; position < length; position += 1) {
    // Holes are skipped, as forEach would.
    if (!(position in deps)) continue
    const dep: unknown = deps[position]
    if (typeof dep === 'string') table.addDependency(dep)
    else {
      const message = `Dependencies must be step ids (strings), got ${describe(dep)}.`
      const path = stepPath(base, index, key, position)
      invalid(reading, path, message, 'Write step ids as strings.', id)
    }
  }
  return !hasSnake
}

/**
 * Reads the step at `index` (the next row) into the table, reporting every problem of its
 * shape; a well-formed id seen for the first time goes into `ids`.
 */
export function readStep(reading: StepReading, raw: unknown, index: number): void {
  if (!isPlainObject(raw, reading.owned === true)) {
    const message = `Step ${index} must be an object, got ${describe(raw)}.`
    invalid(
      reading,
      stepPath(reading.base, index),
      message,
      'A step is { "id", "tool", "args", "depends_on" }.',
    )
    reading.table.add(undefined, undefined, {}, false, false)
    return
  }
  const id = readStepId(reading, raw, index)
  checkStepKeys(reading, raw, index, id)
  const inGraph = id !== undefined && registerStepId(reading, id, index)
  const tool = readStepTool(reading, raw, index, id)
  checkStepDescription(reading, raw, index, id)
  const camel = readStepDependencies(reading, raw, index, id)
  reading.table.add(id, tool, own(raw, 'args'), camel, inGraph)
}
