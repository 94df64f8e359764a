import { describe, resolvePath } from '../checks/path-scope.js'
import { createIssue } from '../issues/create-issue.js'
import { policyPattern } from '../policy/policy-pattern.js'
import type { ArgSpec, ToolPolicy } from '../schema/policy-schema.js'
import type { CommandCheckResult } from '../types/command-check-result.js'
import type { StepReference } from '../types/compiled-plan.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import type { PathScope } from '../types/path-scope.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { isPlainObject } from '../util/is-plain-object.js'
import { checkUrl } from './check-url.js'

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
  /**
   * Step ids a `$ref` may name, or undefined when references are not allowed (live calls).
   * The value is the step's index.
   */
  readonly stepIds?: ReadonlyMap<string, number>
  /** The step being checked, for self-reference detection. */
  readonly stepId?: string
}

/** An {@link ArgumentContext} with the arrays that {@link checkArgumentsInto} appends to. */
export interface ArgumentWalk extends ArgumentContext {
  readonly issues: PlanIssue[]
  readonly references: StepReference[]
  /** When given, the index (in `stepIds`) of each reference's step, aligned with `references`. */
  readonly referenceTargets?: number[]
}

/** The checked arguments: a clean copy, its references, and every issue. */
export interface ArgumentCheck {
  readonly args: JsonObject
  readonly references: StepReference[]
  readonly issues: PlanIssue[]
}

type Path = (string | number)[]
type Key = string | number

// The argument path above a top-level argument; spread, never mutated.
const TOP: Path = []
const NO_FIELD: readonly string[] = Object.freeze([])

/** True for `{ "$ref": … }`: an object whose only key is `$ref`. */
export function isReference(value: unknown): value is { $ref: unknown } {
  return isPlainObject(value) && Object.hasOwn(value, '$ref')
}

/** True when an object has exactly one own enumerable key (as `Object.keys(value).length === 1`). */
function hasOneKey(value: object): boolean {
  let count = 0
  for (const key in value) if (Object.hasOwn(value, key)) count += 1
  return count === 1
}

function declaredHint(declared: Readonly<Record<string, ArgSpec>>): string {
  const names = Object.keys(declared)
  return names.length === 0
    ? 'This tool takes no arguments.'
    : `Declared arguments: ${names.join(', ')}.`
}

function byName(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0
}

/** Sorts distinct names in place; insertion sort for the usual handful of arguments. */
function sortNames(names: string[]): string[] {
  if (names.length > 8) return names.sort(byName)
  for (let index = 1; index < names.length; index += 1) {
    const name = names[index] as string
    let slot = index
    while (slot > 0 && (names[slot - 1] as string) > name) {
      names[slot] = names[slot - 1] as string
      slot -= 1
    }
    names[slot] = name
  }
  return names
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
  const walk: ArgumentWalk = { ...context, issues: [], references: [] }
  const clean = checkArgumentsInto(tool, args, base, walk)
  return { args: clean, references: walk.references, issues: walk.issues }
}

/**
 * {@link checkArguments} appending to `walk.issues` and `walk.references`, so that a whole plan
 * is checked without a result object per step. Issue paths are built only for issues, from a
 * copy of `base`: the caller may reuse `base` between calls.
 */
export function checkArgumentsInto(
  tool: ToolPolicy,
  args: unknown,
  base: Path,
  walk: ArgumentWalk,
): JsonObject {
  const { issues, stepId } = walk
  const declared = tool.args
  if (args === undefined || args === null) {
    args = {}
  }
  if (!isPlainObject(args)) {
    issues.push(
      createIssue(
        'invalid_arguments',
        `Arguments must be an object, got ${describe(args)}.`,
        [...base],
        declaredHint(declared),
        stepId,
      ),
    )
    return {}
  }
  let clean: JsonObject = {}
  let previous: string | undefined
  let sorted = true
  for (const name in args) {
    if (!Object.hasOwn(args, name)) continue
    if (!Object.hasOwn(declared, name) || FORBIDDEN_KEYS.has(name)) {
      issues.push(
        createIssue(
          'unknown_argument',
          `Argument ${JSON.stringify(name)} is not declared for this tool.`,
          [...base, name],
          declaredHint(declared),
          stepId,
        ),
      )
      continue
    }
    const value = checkValue(declared[name] as ArgSpec, args[name], base, name, TOP, 0, walk)
    if (value === undefined) continue
    if (previous !== undefined && byName(previous, name) >= 0) sorted = false
    previous = name
    clean[name] = value
  }
  if (!sorted) {
    // Inserted in sorted key order, so the copy is already canonical for hashing.
    const unsorted = clean
    clean = {}
    for (const name of sortNames(Object.keys(unsorted))) clean[name] = unsorted[name] as JsonValue
  }
  for (const name in declared) {
    if (!Object.hasOwn(declared, name)) continue
    const spec = declared[name] as ArgSpec
    if (spec.required !== false && !Object.hasOwn(args, name)) {
      issues.push(
        createIssue(
          'missing_argument',
          `Required argument ${JSON.stringify(name)} is missing.`,
          [...base, name],
          `Add "${name}" (${spec.type}).`,
          stepId,
        ),
      )
    }
  }
  return Object.freeze(clean)
}

type WalkState = ArgumentWalk

// Values are checked at `[...parent, key]`; that array is built only when an issue needs it.
function fail(state: WalkState, parent: Path, key: Key, message: string, hint?: string): undefined {
  state.issues.push(createIssue('invalid_arguments', message, [...parent, key], hint, state.stepId))
  return undefined
}

function checkReference(
  value: Record<string, unknown>,
  parent: Path,
  key: Key,
  argParent: Path,
  state: WalkState,
): JsonValue | undefined {
  const { stepId } = state
  const target = value.$ref
  const hint =
    'Write { "$ref": "<stepId>" } or { "$ref": "<stepId>.output.<field>" } naming an earlier step.'
  if (state.stepIds === undefined) {
    state.issues.push(
      createIssue(
        'invalid_reference',
        'References are resolved before a call runs; a live call cannot carry one.',
        [...parent, key],
        'Pass the value itself.',
        stepId,
      ),
    )
    return undefined
  }
  if (typeof target !== 'string' || !hasOneKey(value)) {
    state.issues.push(
      createIssue(
        'invalid_reference',
        'A reference must be an object with a single string "$ref".',
        [...parent, key],
        hint,
        stepId,
      ),
    )
    return undefined
  }
  // "<stepId>", "<stepId>.output" or "<stepId>.output.<field>[.<field>…]".
  const dot = target.indexOf('.')
  const targetId = dot === -1 ? target : target.slice(0, dot)
  let field = NO_FIELD
  let malformed = false
  if (dot !== -1) {
    const fieldsAt = dot + 8
    malformed =
      !target.startsWith('output', dot + 1) ||
      (target.length > fieldsAt - 1 && target.charCodeAt(fieldsAt - 1) !== 0x2e)
    if (!malformed && target.length >= fieldsAt) {
      const parts =
        target.indexOf('.', fieldsAt) === -1
          ? [target.slice(fieldsAt)]
          : target.slice(fieldsAt).split('.')
      malformed = parts.length > MAX_REFERENCE_FIELDS
      for (let index = 0; index < parts.length && !malformed; index += 1) {
        const part = parts[index] as string
        malformed = part === '' || FORBIDDEN_KEYS.has(part)
      }
      field = parts
    }
  }
  if (malformed) {
    state.issues.push(
      createIssue(
        'invalid_reference',
        `Reference ${JSON.stringify(target)} is malformed.`,
        [...parent, key],
        hint,
        stepId,
      ),
    )
    return undefined
  }
  if (targetId === stepId) {
    state.issues.push(
      createIssue(
        'self_dependency',
        `Step ${JSON.stringify(stepId)} refers to its own output.`,
        [...parent, key],
        'A step can only read the output of another, earlier step.',
        stepId,
      ),
    )
    return undefined
  }
  const targetIndex = state.stepIds.get(targetId)
  if (targetIndex === undefined) {
    state.issues.push(
      createIssue(
        'invalid_reference',
        `Reference to unknown step ${JSON.stringify(targetId)}.`,
        [...parent, key],
        hint,
        stepId,
      ),
    )
    return undefined
  }
  state.references.push(
    Object.freeze({
      path: Object.freeze(argParent.length === 0 ? [key] : [...argParent, key]),
      stepId: targetId,
      field: field === NO_FIELD ? field : Object.freeze(field),
    }),
  )
  state.referenceTargets?.push(targetIndex)
  return Object.freeze({ $ref: target })
}

function checkValue(
  spec: ArgSpec,
  value: unknown,
  parent: Path,
  key: Key,
  argParent: Path,
  depth: number,
  state: WalkState,
): JsonValue | undefined {
  if (isReference(value)) return checkReference(value, parent, key, argParent, state)
  switch (spec.type) {
    case 'string': {
      if (typeof value !== 'string')
        return fail(state, parent, key, `Expected a string, got ${describe(value)}.`)
      const max = spec.maxLength ?? DEFAULT_MAX_STRING_LENGTH
      if (value.length > max)
        return fail(
          state,
          parent,
          key,
          `String is ${value.length} characters long (at most ${max}).`,
          'Send a shorter value.',
        )
      if (spec.minLength !== undefined && value.length < spec.minLength)
        return fail(state, parent, key, `String is shorter than ${spec.minLength} characters.`)
      if (spec.pattern !== undefined) {
        if (!policyPattern(spec as { pattern: string }).test(value))
          return fail(state, parent, key, `String does not match the pattern ${spec.pattern}.`)
      }
      if (spec.format === 'url') {
        const checked = checkUrl(value, { schemes: spec.schemes ?? ['https'], hosts: spec.hosts })
        if (!checked.ok) return fail(state, parent, key, checked.message, checked.hint)
      }
      return value
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value))
        return fail(state, parent, key, `Expected a finite number, got ${describe(value)}.`)
      if (spec.integer === true && !Number.isInteger(value))
        return fail(state, parent, key, 'Expected an integer.')
      if (spec.minimum !== undefined && value < spec.minimum)
        return fail(state, parent, key, `Number is below the minimum ${spec.minimum}.`)
      if (spec.maximum !== undefined && value > spec.maximum)
        return fail(state, parent, key, `Number is above the maximum ${spec.maximum}.`)
      return value
    }
    case 'boolean':
      return typeof value === 'boolean'
        ? value
        : fail(state, parent, key, `Expected a boolean, got ${describe(value)}.`)
    case 'enum':
      return spec.values.some((allowed) => allowed === value)
        ? (value as JsonValue)
        : fail(
            state,
            parent,
            key,
            `Value is not one of the allowed values.`,
            `Use one of: ${spec.values.map((entry) => JSON.stringify(entry)).join(', ')}.`,
          )
    case 'path': {
      const resolved = resolvePath(value, state.scope, spec.access)
      if (typeof resolved === 'string') return value as string
      state.issues.push(
        createIssue(resolved.code, resolved.message, [...parent, key], resolved.hint, state.stepId),
      )
      return undefined
    }
    case 'command': {
      const result = state.checkCommand(value)
      if (result.allowed) return value as string
      for (const found of result.issues) {
        state.issues.push(
          createIssue(
            found.code,
            found.message,
            [...parent, key, ...found.path],
            found.hint,
            state.stepId,
          ),
        )
      }
      return undefined
    }
    case 'array': {
      if (!Array.isArray(value))
        return fail(state, parent, key, `Expected an array, got ${describe(value)}.`)
      if (spec.maxItems !== undefined && value.length > spec.maxItems)
        return fail(
          state,
          parent,
          key,
          `Array has ${value.length} items (at most ${spec.maxItems}).`,
        )
      if (depth >= MAX_ARGUMENT_DEPTH)
        return fail(state, parent, key, `Value is nested deeper than ${MAX_ARGUMENT_DEPTH} levels.`)
      const path = [...parent, key]
      const argPath = [...argParent, key]
      const out: JsonValue[] = []
      let ok = true
      value.forEach((item, index) => {
        const checked = checkValue(spec.items, item, path, index, argPath, depth + 1, state)
        if (checked === undefined) ok = false
        else out.push(checked)
      })
      return ok ? (Object.freeze(out) as JsonValue[]) : undefined
    }
    case 'json': {
      const budget = { bytes: spec.maxBytes ?? DEFAULT_MAX_STRING_LENGTH * 10 }
      return checkJson(value, parent, key, argParent, depth, state, budget)
    }
  }
}

/** Copies a JSON value, refusing non-JSON values, deep nesting, prototype keys and oversize. */
function checkJson(
  value: unknown,
  parent: Path,
  key: Key,
  argParent: Path,
  depth: number,
  state: WalkState,
  budget: { bytes: number },
): JsonValue | undefined {
  if (depth > MAX_ARGUMENT_DEPTH)
    return fail(state, parent, key, `Value is nested deeper than ${MAX_ARGUMENT_DEPTH} levels.`)
  if (value === null || typeof value === 'boolean') {
    budget.bytes -= 5
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value))
      return fail(state, parent, key, 'Numbers must be finite (no NaN or Infinity).')
    budget.bytes -= 24
  } else if (typeof value === 'string') {
    budget.bytes -= value.length + 2
  } else if (Array.isArray(value)) {
    budget.bytes -= 2
    const path = [...parent, key]
    const argPath = [...argParent, key]
    const out: JsonValue[] = []
    for (let index = 0; index < value.length && budget.bytes >= 0; index += 1) {
      const checked = checkJson(value[index], path, index, argPath, depth + 1, state, budget)
      if (checked === undefined) return undefined
      out.push(checked)
    }
    if (budget.bytes < 0)
      return fail(state, parent, key, 'Value is larger than the declared maxBytes.')
    return Object.freeze(out) as JsonValue[]
  } else if (isReference(value)) {
    return checkReference(value, parent, key, argParent, state)
  } else if (isPlainObject(value)) {
    budget.bytes -= 2
    const path = [...parent, key]
    const argPath = [...argParent, key]
    const out: JsonObject = {}
    for (const name of Object.keys(value).sort()) {
      if (FORBIDDEN_KEYS.has(name))
        return fail(
          state,
          parent,
          key,
          `Key ${JSON.stringify(name)} is not accepted.`,
          'Rename the key; prototype keys are refused.',
        )
      budget.bytes -= name.length + 3
      const checked = checkJson(value[name], path, name, argPath, depth + 1, state, budget)
      if (checked === undefined) return undefined
      out[name] = checked
      if (budget.bytes < 0) break
    }
    if (budget.bytes < 0)
      return fail(state, parent, key, 'Value is larger than the declared maxBytes.')
    return Object.freeze(out)
  } else {
    return fail(state, parent, key, `Expected a JSON value, got ${describe(value)}.`)
  }
  if (budget.bytes < 0)
    return fail(state, parent, key, 'Value is larger than the declared maxBytes.')
  return value as JsonValue
}
