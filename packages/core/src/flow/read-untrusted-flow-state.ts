import { matchJsonSchema } from '@plan/json'
import { PlanError } from '@plan/shell/common'
import type { SavedUntrustedFlowState } from '../schema/untrusted-flow-state-schema.js'
import type { UntrustedFlowState } from '../types/untrusted-flow.js'
import UNTRUSTED_FLOW_STATE_JSON_SCHEMA from './untrusted-flow-state-schema.generated.json' with {
  type: 'json',
}

function invalid(): never {
  throw new PlanError('Invalid guard state: flow.', {
    issues: [
      { code: 'state_corrupt', message: 'The guard state has an invalid flow.', path: ['flow'] },
    ],
  })
}

/** A copy of a record of saved data without a prototype, so that no key of it reaches one. */
function withoutPrototype<T>(record: Readonly<Record<string, T>> = {}): Record<string, T> {
  return Object.assign(Object.create(null), record)
}

/**
 * Checks a guard state's `flow` part (maybe after a JSON trip) against `untrustedFlowStateSchema`;
 * answers a copy, absent flags and counts filled in. Throws `PlanError` (`state_corrupt`) for
 * anything else, or a step that saw more untrusted outputs than the state records.
 */
export function readUntrustedFlowState(value: unknown): UntrustedFlowState {
  const match = matchJsonSchema<SavedUntrustedFlowState>(UNTRUSTED_FLOW_STATE_JSON_SCHEMA, value)
  if (!match.success) invalid()
  const { labels, seen, text, sensitive, acted, sources, context, files, questions } = match.value
  const outputs = text.outputs.map(({ stepId, texts }) => ({ stepId, texts }))
  for (const count of Object.values(seen)) if (count > outputs.length) invalid()
  return {
    labels: withoutPrototype(labels),
    seen: withoutPrototype(seen),
    text: { outputs, saturatedAt: text.saturatedAt ?? null },
    sensitive: sensitive ?? false,
    acted: acted ?? false,
    sources: withoutPrototype(sources),
    context: context ?? [],
    files: withoutPrototype(files),
    questions: questions ?? 0,
  }
}
