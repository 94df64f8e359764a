import type { CompiledPlan } from '../types/compiled-plan.js'
import { canonicalJson, sha256 } from '../util/canonical-json.js'

/** A short, stable key for a call (`tool \0 canonical arguments`); long argument texts are hashed. */
export function callKey(tool: string, canonical: string): string {
  const key = `${tool}\u0000${canonical}`
  return key.length <= 256 ? key : `${tool}\u0000sha256:${sha256(canonical)}`
}

/** Tools and arguments of a turn, ignoring step ids (fresh tool-call ids every turn). */
export function turnSignature(plan: CompiledPlan): string {
  const calls = plan.steps.map((step) => canonicalJson([step.tool, step.args]))
  return sha256(calls.join('\n'))
}

/** What a rejected per-turn batch asked for (tools and arguments, not ids), to spot repeats. */
export function rejectedTurnKey(plan: unknown): string | undefined {
  try {
    const steps: unknown = Array.isArray(plan)
      ? plan
      : typeof plan === 'object' && plan !== null
        ? (plan as { steps?: unknown }).steps
        : undefined
    if (!Array.isArray(steps)) return undefined
    const calls = steps.map((step: unknown) =>
      typeof step === 'object' && step !== null
        ? [(step as { tool?: unknown }).tool ?? null, (step as { args?: unknown }).args ?? null]
        : [step],
    )
    return `turn:${sha256(canonicalJson(calls))}`
  } catch {
    return undefined
  }
}
