import { canonicalJson, sha256Hex } from '@plan/json'
import type { CompiledPlan } from '../types/compiled-plan.js'

/** A short, stable key for a call (`tool \0 canonical arguments`); long argument texts are hashed. */
export function callKey(tool: string, canonical: string): string {
  const key = `${tool}\u0000${canonical}`
  return key.length <= 256 ? key : `${tool}\u0000sha256:${sha256Hex(canonical)}`
}

/** Longest turn text that is its own signature; longer ones are hashed. */
const SHORT_TURN = 256

/**
 * Tools and arguments of a turn, ignoring step ids (fresh tool-call ids every turn): the
 * canonical text itself when it is short (a JSON array, never a hex digest), else its SHA-256.
 */
export function turnSignature(plan: CompiledPlan): string {
  const text = plan.steps.map((step) => canonicalJson([step.tool, step.args])).join('\n')
  return text.length <= SHORT_TURN ? text : sha256Hex(text)
}

/** What a rejected per-turn batch asked for (tools and arguments, not ids), to spot repeats. */
export function rejectedTurnKey(plan: unknown): string | undefined {
  try {
    const steps: unknown = Array.isArray(plan)
      ? plan
      : typeof plan === 'object' && plan !== null && 'steps' in plan
        ? plan.steps
        : undefined
    if (!Array.isArray(steps)) return undefined
    const calls = steps.map((step: unknown) =>
      typeof step === 'object' && step !== null
        ? [('tool' in step ? step.tool : null) ?? null, ('args' in step ? step.args : null) ?? null]
        : [step],
    )
    return `turn:${sha256Hex(canonicalJson(calls))}`
  } catch {
    return undefined
  }
}
