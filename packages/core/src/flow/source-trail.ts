import type { ToolPolicy } from '../schema/policy-schema.js'
import { roleValues } from '../taint/role-values.js'
import type { CompiledStep } from '../types/compiled-plan.js'
import type { JsonObject } from '../types/json-value.js'
import type { ResolvedPolicy } from '../types/resolved-policy.js'
import type { TrustLabel, UntrustedFlowState } from '../types/untrusted-flow.js'
import { StepValues } from '../util/step-values.js'
import { outputSources, type ParseCommand, type SourceContext } from './data-sources.js'

type SourceLists = Map<string, readonly string[]>

/**
 * Where untrusted data came from, as it moves through a run: the sources of each untrusted
 * step output, of everything the model has seen, and of each workspace file written with it.
 */
export class SourceTrail {
  /** The sources of each untrusted step output (by position for the current plan's steps). */
  readonly steps = new StepValues<readonly string[]>()
  /** The sources of every untrusted output that reached the model's context. */
  readonly context: Set<string>
  /** Workspace files (relative to a root) written with untrusted data, with its sources. */
  readonly files: SourceLists
  // Where each checked step's output will come from, worked out on its resolved arguments: by
  // position, like `steps` (a Map whose entries come and go every step would get a new table,
  // in the old generation, at each growth or shrink).
  readonly #origins = new StepValues<readonly string[]>()
  // One frozen list per distinct list of sources: most steps of a run share a few.
  readonly #lists = new Map<string, readonly string[]>()
  readonly #context: SourceContext

  constructor(
    policy: ResolvedPolicy,
    parseCommand: ParseCommand,
    state: UntrustedFlowState | undefined,
  ) {
    const fileSources = (file: string) => this.files.get(file)
    this.#context = { roots: policy.scope.roots, parseCommand, fileSources }
    for (const [id, sources] of Object.entries(state?.sources ?? {})) this.steps.set(id, sources)
    this.context = new Set(state?.context ?? [])
    this.files = new Map(Object.entries(state?.files ?? {}))
  }

  /** Keeps the records by position for a newly installed plan's steps (see `StepValues.place`). */
  place(ids: readonly string[], positions: ReadonlyMap<string, number>): void {
    this.steps.place(ids, positions)
    this.#origins.place(ids, positions)
  }

  #ownSources(step: CompiledStep, tool: ToolPolicy | undefined, args: JsonObject): string[] {
    const values = tool === undefined ? [] : roleValues(tool, args)
    return outputSources(step.tool, tool, values, this.#context)
  }

  #referenceSources(step: CompiledStep, labels: ReadonlyMap<string, TrustLabel>): string[] {
    const found: string[] = []
    for (const reference of step.references) {
      if (labels.get(reference.stepId) === 'trusted') continue
      found.push(...(this.steps.get(reference.stepId) ?? [`step:${reference.stepId}`]))
    }
    return found
  }

  /** A step's call was checked with these (resolved) arguments. */
  checked(step: CompiledStep, tool: ToolPolicy, args: JsonObject): void {
    this.#origins.set(step.id, this.#ownSources(step, tool, args))
  }

  /** A step's output was labelled untrusted: its sources join the model's context. */
  recorded(
    step: CompiledStep,
    tool: ToolPolicy | undefined,
    labels: ReadonlyMap<string, TrustLabel>,
  ): void {
    const own = this.#origins.get(step.id) ?? this.#ownSources(step, tool, step.args)
    this.#origins.delete(step.id)
    const found = this.#shared([...new Set([...own, ...this.#referenceSources(step, labels)])])
    this.steps.set(step.id, found)
    for (const source of found) this.context.add(source)
  }

  /** The one frozen copy of a list of sources (the first 4,096 distinct lists are kept). */
  #shared(sources: string[]): readonly string[] {
    const key = JSON.stringify(sources)
    const known = this.#lists.get(key)
    if (known !== undefined) return known
    const frozen = Object.freeze(sources)
    if (this.#lists.size < 4096) this.#lists.set(key, frozen)
    return frozen
  }

  /** The sources a step's call carries; with `inContext`, also everything the model saw. */
  callSources(
    step: CompiledStep,
    labels: ReadonlyMap<string, TrustLabel>,
    inContext: boolean,
  ): string[] {
    const found = this.#referenceSources(step, labels)
    // A state saved before sources were kept: the context is untrusted, of unknown origin.
    if (inContext) found.push(...(this.context.size > 0 ? this.context : ['context']))
    return [...new Set(found)]
  }

  /** Labels a file with the sources written to it; none clears the label. */
  labelFile(relative: string, written: readonly string[]): void {
    if (written.length === 0) this.files.delete(relative)
    else this.files.set(relative, [...new Set(written)])
  }

  forget(stepId: string): void {
    this.steps.delete(stepId)
  }

  /** A checked step's output was labelled trusted: where it would have come from is not kept. */
  trusted(stepId: string): void {
    this.#origins.delete(stepId)
  }

  /** The parts of the flow state this trail keeps, each left out when empty; `sources` optional. */
  toJSON(withSources = true): Pick<UntrustedFlowState, 'sources' | 'context' | 'files'> {
    return {
      ...(withSources && this.steps.size > 0 ? { sources: Object.fromEntries(this.steps) } : {}),
      ...(this.context.size > 0 ? { context: [...this.context] } : {}),
      ...(this.files.size > 0 ? { files: Object.fromEntries(this.files) } : {}),
    }
  }
}
