import { checkPathLexical, describe, type PathScope } from '../checks/path-scope.js'
import type { CommandCheckResult } from '../command/command-check-result.js'
import type { PlanIssue } from '../issues/plan-issue.js'
import type { JsonObject, JsonValue } from '../plan/json-value.js'
import type { ArgSpec, ToolPolicy } from '../policy/policy-schema.js'
import type { StepReference } from './compiled-plan.js'

/** Deepest accepted nesting of an argument value. */
export const MAX_ARGUMENT_DEPTH = 64
/** Longest string argument accepted when the policy sets no `maxLength`. */
export const DEFAULT_MAX_STRING_LENGTH = 100_000
/** Keys refused anywhere inside arguments, because they can reach an object's prototype. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])
const MAX_REFERENCE_FIELDS = 32

/** Everything an argument check needs from the compiler. */
export interface ArgumentContext {
  readonly scope: PathScope
  readonly checkCommand: (command: unknown) => CommandCheckResult
  /** Compiled `pattern`s of string arguments, cached per spec. */
  readonly patterns: WeakMap<object, RegExp>
  /**
   * Step ids a `$ref` may name, or undefined when references are not allowed (live calls).
   * The value is the step's index.
   */
  readonly stepIds?: ReadonlyMap<string, number>
  /** The step being checked, for self-reference detection. */
  readonly stepId?: string
}

/** The checked arguments: a clean copy, its references, and every issue. */
export interface ArgumentCheck {
  readonly args: JsonObject
  readonly references: StepReference[]
  readonly issues: PlanIssue[]
}

type Path = (string | number)[]

function issue(
  code: PlanIssue['code'],
  message: string,
  path: Path,
  hint: string | undefined,
  stepId: string | undefined,
): PlanIssue {
  const result: { -readonly [K in keyof PlanIssue]: PlanIssue[K] } = { code, message, path }
  if (stepId !== undefined) result.stepId = stepId
  if (hint !== undefined) result.hint = hint
  return result
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/** True for `{ "$ref": … }`: an object whose only key is `$ref`. */
export function isReference(value: unknown): value is { $ref: unknown } {
  return isPlainObject(value) && Object.hasOwn(value, '$ref')
}

/**
 * Checks one call's arguments against a tool's declaration: undeclared, missing and
 * mistyped arguments, paths, commands, references. Reports every problem.
 */
export function checkArguments(
  tool: ToolPolicy,
  args: unknown,
  base: Path,
  context: ArgumentContext,
): ArgumentCheck {
  const issues: PlanIssue[] = []
  const references: StepReference[] = []
  const clean: JsonObject = {}
  const stepId = context.stepId
  const declared = tool.args
  const declaredNames = Object.keys(declared)
  const declaredHint =
    declaredNames.length === 0
      ? 'This tool takes no arguments.'
      : `Declared arguments: ${declaredNames.join(', ')}.`
  if (args === undefined || args === null) {
    args = {}
  }
  if (!isPlainObject(args)) {
    issues.push(
      issue(
        'invalid_arguments',
        `Arguments must be an object, got ${describe(args)}.`,
        base,
        declaredHint,
        stepId,
      ),
    )
    return { args: clean, references, issues }
  }
  const state: WalkState = { issues, references, context, stepId }
  const checked: [string, JsonValue][] = []
  for (const name of Object.keys(args)) {
    const path = [...base, name]
    if (!Object.hasOwn(declared, name) || FORBIDDEN_KEYS.has(name)) {
      issues.push(
        issue(
          'unknown_argument',
          `Argument ${JSON.stringify(name)} is not declared for this tool.`,
          path,
          declaredHint,
          stepId,
        ),
      )
      continue
    }
    const spec = declared[name] as ArgSpec
    const value = checkValue(spec, args[name], path, [name], 0, state)
    if (value !== undefined) checked.push([name, value])
  }
  // Inserted in sorted key order, so the copy is already canonical for hashing.
  checked.sort((left, right) => (left[0] < right[0] ? -1 : left[0] > right[0] ? 1 : 0))
  for (const [name, value] of checked) clean[name] = value
  for (const name of declaredNames) {
    const spec = declared[name] as ArgSpec
    if (spec.required !== false && !Object.hasOwn(args, name)) {
      issues.push(
        issue(
          'missing_argument',
          `Required argument ${JSON.stringify(name)} is missing.`,
          [...base, name],
          `Add "${name}" (${spec.type}).`,
          stepId,
        ),
      )
    }
  }
  return { args: Object.freeze(clean), references, issues }
}

interface WalkState {
  readonly issues: PlanIssue[]
  readonly references: StepReference[]
  readonly context: ArgumentContext
  readonly stepId: string | undefined
}

function checkReference(
  value: Record<string, unknown>,
  path: Path,
  argPath: Path,
  state: WalkState,
): JsonValue | undefined {
  const { context, stepId } = state
  const target = value.$ref
  const hint =
    'Write { "$ref": "<stepId>" } or { "$ref": "<stepId>.output.<field>" } naming an earlier step.'
  if (context.stepIds === undefined) {
    state.issues.push(
      issue(
        'invalid_reference',
        'References are resolved before a call runs; a live call cannot carry one.',
        path,
        'Pass the value itself.',
        stepId,
      ),
    )
    return undefined
  }
  if (Object.keys(value).length !== 1 || typeof target !== 'string') {
    state.issues.push(
      issue(
        'invalid_reference',
        'A reference must be an object with a single string "$ref".',
        path,
        hint,
        stepId,
      ),
    )
    return undefined
  }
  const segments = target.split('.')
  const targetId = segments[0] as string
  const field = segments.slice(2)
  if (
    (segments.length >= 2 && segments[1] !== 'output') ||
    field.some((part) => part === '' || FORBIDDEN_KEYS.has(part)) ||
    field.length > MAX_REFERENCE_FIELDS
  ) {
    state.issues.push(
      issue(
        'invalid_reference',
        `Reference ${JSON.stringify(target)} is malformed.`,
        path,
        hint,
        stepId,
      ),
    )
    return undefined
  }
  if (targetId === stepId) {
    state.issues.push(
      issue(
        'self_dependency',
        `Step ${JSON.stringify(stepId)} refers to its own output.`,
        path,
        'A step can only read the output of another, earlier step.',
        stepId,
      ),
    )
    return undefined
  }
  if (!context.stepIds.has(targetId)) {
    state.issues.push(
      issue(
        'invalid_reference',
        `Reference to unknown step ${JSON.stringify(targetId)}.`,
        path,
        hint,
        stepId,
      ),
    )
    return undefined
  }
  state.references.push(
    Object.freeze({ path: Object.freeze(argPath), stepId: targetId, field: Object.freeze(field) }),
  )
  return Object.freeze({ $ref: target })
}

function checkValue(
  spec: ArgSpec,
  value: unknown,
  path: Path,
  argPath: Path,
  depth: number,
  state: WalkState,
): JsonValue | undefined {
  const { context, stepId } = state
  if (isReference(value)) return checkReference(value, path, argPath, state)
  const fail = (message: string, hint?: string) => {
    state.issues.push(issue('invalid_arguments', message, path, hint, stepId))
    return undefined
  }
  switch (spec.type) {
    case 'string': {
      if (typeof value !== 'string') return fail(`Expected a string, got ${describe(value)}.`)
      const max = spec.maxLength ?? DEFAULT_MAX_STRING_LENGTH
      if (value.length > max)
        return fail(
          `String is ${value.length} characters long (at most ${max}).`,
          'Send a shorter value.',
        )
      if (spec.minLength !== undefined && value.length < spec.minLength)
        return fail(`String is shorter than ${spec.minLength} characters.`)
      if (spec.pattern !== undefined) {
        let pattern = context.patterns.get(spec)
        if (pattern === undefined) {
          pattern = new RegExp(`^(?:${spec.pattern})$`, 'u')
          context.patterns.set(spec, pattern)
        }
        if (!pattern.test(value)) return fail(`String does not match the pattern ${spec.pattern}.`)
      }
      return value
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value))
        return fail(`Expected a finite number, got ${describe(value)}.`)
      if (spec.integer === true && !Number.isInteger(value)) return fail('Expected an integer.')
      if (spec.minimum !== undefined && value < spec.minimum)
        return fail(`Number is below the minimum ${spec.minimum}.`)
      if (spec.maximum !== undefined && value > spec.maximum)
        return fail(`Number is above the maximum ${spec.maximum}.`)
      return value
    }
    case 'boolean':
      return typeof value === 'boolean'
        ? value
        : fail(`Expected a boolean, got ${describe(value)}.`)
    case 'enum':
      return spec.values.some((allowed) => allowed === value)
        ? (value as JsonValue)
        : fail(
            `Value is not one of the allowed values.`,
            `Use one of: ${spec.values.map((entry) => JSON.stringify(entry)).join(', ')}.`,
          )
    case 'path': {
      const result = checkPathLexical(value, context.scope, spec.access)
      if (result.allowed) return value as string
      state.issues.push(
        issue(result.issue.code, result.issue.message, path, result.issue.hint, stepId),
      )
      return undefined
    }
    case 'command': {
      const result = context.checkCommand(value)
      if (result.allowed) return value as string
      for (const found of result.issues) {
        state.issues.push(
          issue(found.code, found.message, [...path, ...found.path], found.hint, stepId),
        )
      }
      return undefined
    }
    case 'array': {
      if (!Array.isArray(value)) return fail(`Expected an array, got ${describe(value)}.`)
      if (spec.maxItems !== undefined && value.length > spec.maxItems)
        return fail(`Array has ${value.length} items (at most ${spec.maxItems}).`)
      if (depth >= MAX_ARGUMENT_DEPTH)
        return fail(`Value is nested deeper than ${MAX_ARGUMENT_DEPTH} levels.`)
      const out: JsonValue[] = []
      let ok = true
      value.forEach((item, index) => {
        const checked = checkValue(
          spec.items,
          item,
          [...path, index],
          [...argPath, index],
          depth + 1,
          state,
        )
        if (checked === undefined) ok = false
        else out.push(checked)
      })
      return ok ? (Object.freeze(out) as JsonValue[]) : undefined
    }
    case 'json': {
      const budget = { bytes: spec.maxBytes ?? DEFAULT_MAX_STRING_LENGTH * 10 }
      return checkJson(value, path, argPath, depth, state, budget)
    }
  }
}

/** Copies a JSON value, refusing non-JSON values, deep nesting, prototype keys and oversize. */
function checkJson(
  value: unknown,
  path: Path,
  argPath: Path,
  depth: number,
  state: WalkState,
  budget: { bytes: number },
): JsonValue | undefined {
  const fail = (message: string, hint?: string) => {
    state.issues.push(issue('invalid_arguments', message, path, hint, state.stepId))
    return undefined
  }
  if (depth > MAX_ARGUMENT_DEPTH)
    return fail(`Value is nested deeper than ${MAX_ARGUMENT_DEPTH} levels.`)
  if (value === null || typeof value === 'boolean') {
    budget.bytes -= 5
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) return fail('Numbers must be finite (no NaN or Infinity).')
    budget.bytes -= 24
  } else if (typeof value === 'string') {
    budget.bytes -= value.length + 2
  } else if (Array.isArray(value)) {
    budget.bytes -= 2
    const out: JsonValue[] = []
    for (let index = 0; index < value.length && budget.bytes >= 0; index += 1) {
      const checked = checkJson(
        value[index],
        [...path, index],
        [...argPath, index],
        depth + 1,
        state,
        budget,
      )
      if (checked === undefined) return undefined
      out.push(checked)
    }
    if (budget.bytes < 0) return fail('Value is larger than the declared maxBytes.')
    return Object.freeze(out) as JsonValue[]
  } else if (isReference(value)) {
    return checkReference(value, path, argPath, state)
  } else if (isPlainObject(value)) {
    budget.bytes -= 2
    const out: JsonObject = {}
    for (const key of Object.keys(value).sort()) {
      if (FORBIDDEN_KEYS.has(key))
        return fail(
          `Key ${JSON.stringify(key)} is not accepted.`,
          'Rename the key; prototype keys are refused.',
        )
      budget.bytes -= key.length + 3
      const checked = checkJson(
        value[key],
        [...path, key],
        [...argPath, key],
        depth + 1,
        state,
        budget,
      )
      if (checked === undefined) return undefined
      out[key] = checked
      if (budget.bytes < 0) break
    }
    if (budget.bytes < 0) return fail('Value is larger than the declared maxBytes.')
    return Object.freeze(out)
  } else {
    return fail(`Expected a JSON value, got ${describe(value)}.`)
  }
  if (budget.bytes < 0) return fail('Value is larger than the declared maxBytes.')
  return value as JsonValue
}
