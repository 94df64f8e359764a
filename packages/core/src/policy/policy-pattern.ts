import { isRecord } from '@plan/shell/common'
import type { RE2JS } from 're2js'
import { errorMessage } from '../util/error-message.js'

type PatternEngine = typeof RE2JS

/** RE2, once loaded: only policies that have a `pattern` pay for loading it. */
let engineClass: PatternEngine | undefined

/** Sets the engine from a module that imported `re2js` itself (the synchronous resolver). */
export function usePatternEngine(engine: PatternEngine): void {
  engineClass ??= engine
}

/** Loads the engine once; call before compiling patterns on the asynchronous path. */
export async function loadPatternEngine(): Promise<void> {
  if (engineClass === undefined) usePatternEngine((await import('re2js')).RE2JS)
}

/** True when a policy (or any part of it) has a string `pattern` to compile. */
export function hasPatterns(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null || depth > 64) return false
  if (Array.isArray(value)) return value.some((item) => hasPatterns(item, depth + 1))
  if (!isRecord(value)) return false
  if (typeof value.pattern === 'string') return true
  return Object.values(value).some((child) => hasPatterns(child, depth + 1))
}

/** A policy `pattern`, compiled once and matched against a whole value in linear time. */
export interface PolicyPattern {
  /** The pattern as the policy wrote it. */
  readonly source: string
  /** True when the whole of `value` matches. */
  test(value: string): boolean
}

/** The compiled pattern, or why the policy's pattern is refused. */
export type PolicyPatternResult =
  | { readonly success: true; readonly pattern: PolicyPattern }
  | { readonly success: false; readonly message: string }

const compiled = new WeakMap<object, PolicyPattern>()

/**
 * Compiles a policy `pattern` with RE2 (`re2js`), whose matching is linear in the value's length
 * whatever the pattern: `(a+)+b` cannot hang a check. It must also be a valid JavaScript `u` regex,
 * as the plan JSON Schema hands it to other validators; RE2 refuses backreferences and lookaround.
 */
export function compilePolicyPattern(source: string): PolicyPatternResult {
  try {
    new RegExp(source, 'u')
  } catch (error) {
    return {
      success: false,
      message: `not a valid regular expression: ${errorMessage(error)}`,
    }
  }
  if (engineClass === undefined)
    return { success: false, message: 'not compiled: the pattern engine is not loaded' }
  let engine: RE2JS
  try {
    engine = engineClass.compile(`(?:${source})`)
  } catch (error) {
    return {
      success: false,
      message: `not supported by the linear-time engine (RE2 syntax: no backreferences or lookaround): ${errorMessage(error)}`,
    }
  }
  return {
    success: true,
    pattern: Object.freeze({ source, test: (value: string) => engine.matches(value) }),
  }
}

/** Whether a policy entry declares a `pattern`, so that {@link policyPattern} takes it. */
export function hasPattern<T extends { readonly pattern?: string | undefined }>(
  spec: T,
): spec is T & { readonly pattern: string } {
  return spec.pattern !== undefined
}

/**
 * The compiled pattern of a policy entry (`{ pattern }`), cached per entry. Policies are
 * checked when they load, so a failure here means a hand-made entry: it matches nothing.
 */
export function policyPattern(spec: { readonly pattern: string }): PolicyPattern {
  let pattern = compiled.get(spec)
  if (pattern === undefined) {
    const result = compilePolicyPattern(spec.pattern)
    pattern = result.success ? result.pattern : { source: spec.pattern, test: () => false }
    compiled.set(spec, pattern)
  }
  return pattern
}

/**
 * Compiles every `pattern` of a policy (tool arguments, nested array items, declassifiers),
 * calling `report` with the path and the reason of each one that is refused.
 */
export function compilePolicyPatterns(
  value: unknown,
  path: (string | number)[],
  report: (path: (string | number)[], message: string) => void,
  depth = 0,
): void {
  if (typeof value !== 'object' || value === null || depth > 64) return
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      compilePolicyPatterns(item, [...path, index], report, depth + 1)
    })
    return
  }
  if (!isRecord(value)) return
  if (value.type === 'string' && typeof value.pattern === 'string') {
    const result = compilePolicyPattern(value.pattern)
    if (result.success) compiled.set(value, result.pattern)
    else
      report(
        [...path, 'pattern'],
        `The pattern ${JSON.stringify(value.pattern)} is ${result.message}.`,
      )
  }
  for (const key of Object.keys(value))
    compilePolicyPatterns(value[key], [...path, key], report, depth + 1)
}

/**
 * A `RegExp` for schema libraries (zod's `.regex`, JSON Schema `pattern`): its `source` is the
 * anchored policy pattern, but `test` and `exec` match with the linear-time engine.
 */
export class LinearRegExp extends RegExp {
  readonly #pattern: PolicyPattern

  constructor(pattern: PolicyPattern) {
    super(`^(?:${pattern.source})$`, 'u')
    this.#pattern = pattern
  }

  override test(value: string): boolean {
    return this.#pattern.test(String(value))
  }

  override exec(value: string): RegExpExecArray | null {
    const text = String(value)
    if (!this.#pattern.test(text)) return null
    return Object.assign([text] satisfies [string], { index: 0, input: text })
  }
}
