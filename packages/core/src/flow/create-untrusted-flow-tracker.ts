import { namedByOwnCode } from '@plan/shell'
import { createIssue, type PlanIssue, valueAt } from '@plan/shell/common'
import { matchesExtractionSchema, readExtractionSchema } from '../extract/read-extraction-schema.js'
import type { ArgSpec, ToolPolicy } from '../schema/policy-schema.js'
import { roleValues } from '../taint/role-values.js'
import { workspaceRelative } from '../taint/workspace-relative.js'
import type { CompiledStep } from '../types/compiled-plan.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import type { ResolvedPolicy } from '../types/resolved-policy.js'
import type { TaintState } from '../types/taint-state.js'
import type {
  TrustLabel,
  UntrustedFlowState,
  UntrustedTextIndexState,
} from '../types/untrusted-flow.js'
import { StepCodes } from '../util/step-codes.js'
import { StepValues } from '../util/step-values.js'
import { outputSources, type ParseCommand, type SourceContext } from './data-sources.js'
import { matchesDeclassifySchema } from './matches-declassify-schema.js'
import { collectTexts, withoutOwnEchoes } from './own-echoes.js'
import { RunningCommands } from './running-commands.js'
import {
  type ArgumentPath,
  argumentName,
  copiedTextMatters,
  outputName,
  outsideContentIsTrusted,
  pathRefusesUntrusted,
  refusesUntrusted,
  toolOutputIsUntrusted,
} from './trust-rules.js'
import { NO_TEXTS, UntrustedTextIndex } from './untrusted-text-index.js'

/** What {@link UntrustedFlowTracker.check} found about one call's arguments. */
export interface FlowCheck {
  /** One `untrusted_flow` issue per refusing argument that untrusted data reaches. */
  readonly issues: readonly PlanIssue[]
  /** True when any argument carries untrusted data: the output will be untrusted too. */
  readonly tainted: boolean
}

/** One step's entries of a flow state (undefined where the state has none). */
export interface FlowStepState {
  readonly label: TrustLabel | undefined
  readonly seen: number | undefined
  readonly sources: readonly string[] | undefined
}

/** A flow state without its entries per step, its text outputs from a position on. */
export interface FlowSummaryState {
  readonly rest: Omit<UntrustedFlowState, 'labels' | 'seen' | 'sources' | 'text'>
  readonly saturatedAt: number | null
  readonly outputs: UntrustedTextIndexState['outputs']
  /** Length of `text.outputs`. */
  readonly outputCount: number
}

interface Leaf {
  readonly path: (string | number)[]
  readonly text: string
  readonly refuses: boolean
  /** Whether the text is a path argument's whole value. */
  readonly isPath?: boolean
}

function collectLeaves(
  spec: ArgSpec | undefined,
  value: JsonValue,
  path: (string | number)[],
  refuses: boolean,
  out: Leaf[],
  depth = 0,
): void {
  const refusing = refuses || (spec !== undefined && refusesUntrusted(spec))
  if (typeof value === 'string') {
    out.push({ path, text: value, refuses: refusing, isPath: spec?.type === 'path' })
  } else if (Array.isArray(value)) {
    if (depth > 128) return
    const items = spec?.type === 'array' ? spec.items : undefined
    value.forEach((item, index) => {
      collectLeaves(items, item, [...path, index], refusing, out, depth + 1)
    })
  } else if (typeof value === 'object' && value !== null) {
    if (depth > 128) return
    for (const key of Object.keys(value)) {
      out.push({ path: [...path, key], text: key, refuses: refusing })
      collectLeaves(undefined, valueAt(value, key), [...path, key], refusing, out, depth + 1)
    }
  }
}

/** How a refusal names where copied text came from (a step id has no spaces, a content source does). */
function originName(origin: string): string {
  if (origin === '*') return 'an untrusted output'
  return origin.includes(' ') ? origin : outputName(origin)
}

function issueFor(step: CompiledStep, path: ArgumentPath, flow: string[], pasted: boolean) {
  const copied = pasted ? ' (the text was copied from that output)' : ''
  const message = `Untrusted data reaches an argument that refuses it: ${flow.join(' → ')}${copied}.`
  const hint =
    'Commands, write paths and network destinations take only trusted values; do not copy text from untrusted output into them. Write the value yourself from the task, or stop and ask the user.'
  return { ...createIssue('untrusted_flow', message, [...path], hint, step.id), flow }
}

/** Whether a finished step's output is untrusted: by its tool, its schema or its inputs. */
function outputIsUntrusted(
  policy: ResolvedPolicy,
  step: CompiledStep,
  tool: ToolPolicy | undefined,
  output: JsonValue | undefined,
  tainted: boolean,
  labels: ReadonlyMap<string, TrustLabel>,
  /** An extraction step's schema with its references resolved (when it was checked). */
  resolvedSchema: JsonValue | undefined,
): boolean {
  if (tool === undefined) return true
  if (tool.output?.extract === true) {
    const schema = readExtractionSchema(resolvedSchema ?? step.args.schema)
    // Values fixed by an earlier step are a bound only if that step's output was trusted.
    const bound = step.references.every(
      (reference) => reference.path[0] !== 'schema' || labels.get(reference.stepId) === 'trusted',
    )
    return (
      !bound ||
      schema === undefined ||
      output === undefined ||
      !matchesExtractionSchema(schema, output, policy.scope)
    )
  }
  const declassify = tool.output?.declassify
  if (declassify !== undefined)
    return output === undefined || !matchesDeclassifySchema(declassify, output)
  return tainted || toolOutputIsUntrusted(policy.policy, tool)
}

/** Reports each untrusted reference into a refusing argument; whether any reference is untrusted. */
function checkReferences(
  step: CompiledStep,
  tool: ToolPolicy,
  labels: ReadonlyMap<string, TrustLabel>,
  issues: PlanIssue[],
): boolean {
  let tainted = false
  for (const reference of step.references) {
    if (labels.get(reference.stepId) === 'trusted') continue
    tainted = true
    if (!pathRefusesUntrusted(tool, reference.path)) continue
    const flow = [
      outputName(reference.stepId, reference.field),
      argumentName(step.id, reference.path),
    ]
    issues.push(issueFor(step, reference.path, flow, false))
  }
  return tainted
}

/** {@link indexesText} of each policy a tracker has been made for. */
const textIndexed = new WeakMap<ResolvedPolicy, boolean>()
/** Whether a run needs untrusted outputs' text: the copied-text check can change a tool's calls. */
function indexesText(policy: ResolvedPolicy): boolean {
  let needed = textIndexed.get(policy)
  if (needed === undefined) {
    needed = false
    for (const tool of policy.tools.values()) needed ||= copiedTextMatters(policy.policy, tool)
    textIndexed.set(policy, needed)
  }
  return needed
}

/** Whether copied-text checks can change this call: the tool's can be, or an arg is undeclared. */
function pasteMatters(policy: ResolvedPolicy, tool: ToolPolicy, args: JsonObject): boolean {
  if (copiedTextMatters(policy.policy, tool)) return true
  for (const name of Object.keys(args)) if (!Object.hasOwn(tool.args, name)) return true
  return false
}

/**
 * The run-time side of the data-flow check, used by the guard: outputs of untrusted tools (and of
 * tools fed untrusted data) are labelled when they finish; a reference to one stays untrusted; and
 * an argument containing text copied from one is untrusted too (see `UntrustedTextIndex`).
 */
export class UntrustedFlowTracker {
  /** The commands running now that may write files from untrusted data or execute them. */
  readonly commands = new RunningCommands()
  /** Whether the index keeps the text of outputs (see {@link indexesText}). */
  private readonly texts: boolean
  private readonly labels = new StepCodes<TrustLabel>(['trusted', 'untrusted'])
  /** For each step, how many indexed outputs its planner may have seen. */
  private readonly seen = new StepValues<number>()
  private readonly index: UntrustedTextIndex
  /** The sources of each untrusted step output (by position for the current plan's steps). */
  private readonly sources = new StepValues<readonly string[]>()
  /** The sources of every untrusted output that reached the model's context. */
  private readonly context: Set<string>
  /** Workspace files (relative to a root) written with untrusted data, with its sources. */
  private readonly files: Map<string, readonly string[]>
  // Each checked step's output sources (from its resolved args), by position like `sources`: a Map
  // with entries coming and going every step gets a new old-generation table at each resize.
  private readonly origins = new StepValues<readonly string[]>()
  // One frozen list per distinct list of sources: most steps of a run share a few.
  private lists: Map<string, readonly string[]> | undefined
  private readonly sourceContext: SourceContext
  /** Extraction steps' schemas as checked, kept until their output is recorded. */
  private schemas: Map<string, JsonValue> | undefined
  /** Whether the run read sensitive data, whether it acted, how many refusals it put to a human. */
  private readonly flags: { sensitive: boolean; acted: boolean; questions: number }
  /** Whether resource content is trusted: the policy's answer, asked at the first resource read. */
  private outsideTrusted: boolean | undefined

  /** A tracker for a run resumed from `state`, or for a new run. */
  constructor(
    private readonly policy: ResolvedPolicy,
    state?: UntrustedFlowState,
    /** Reads a command into its argv, to name where a command's output comes from. */
    parseCommand: ParseCommand = () => undefined,
  ) {
    this.texts = indexesText(policy)
    const fileSources = (file: string) => this.files.get(file)
    this.sourceContext = { roots: policy.scope.roots, parseCommand, fileSources }
    for (const [id, sources] of Object.entries(state?.sources ?? {})) this.sources.set(id, sources)
    this.context = new Set(state?.context)
    this.files = new Map(state?.files === undefined ? undefined : Object.entries(state.files))
    this.index =
      state === undefined ? new UntrustedTextIndex() : UntrustedTextIndex.fromJSON(state.text)
    if (state !== undefined) {
      for (const id of Object.keys(state.labels)) this.labels.set(id, valueAt(state.labels, id))
      for (const id of Object.keys(state.seen)) this.seen.set(id, valueAt(state.seen, id))
    }
    const questions = state?.questions ?? 0
    this.flags = { sensitive: state?.sensitive === true, acted: state?.acted === true, questions }
  }

  /** Stamps steps of a newly approved plan with the outputs their planner may have seen. */
  planApproved(stepIds: readonly string[]): void {
    for (const id of stepIds) this.seen.set(id, this.index.size)
  }

  /** Keeps per-step records by position for a new plan's `ids` (no hash entry per step). */
  place(ids: readonly string[], positions: ReadonlyMap<string, number>): void {
    this.labels.place(ids, positions)
    this.seen.place(ids, positions)
    this.sources.place(ids, positions)
    this.origins.place(ids, positions)
  }

  /**
   * Checks a ready step's arguments (references resolved) before it runs; `paste: false`
   * skips the copied-text check (the tainted-run rules decide instead).
   */
  check(step: CompiledStep, args: JsonObject, paste = true): FlowCheck {
    const tool = this.policy.tools.get(step.tool)
    // Unknown tool: the guard denies it anyway; refuse here too.
    if (tool === undefined) return { issues: [], tainted: true }
    this.origins.set(step.id, this.ownSources(step, tool, args))
    if (tool.output?.extract === true && args.schema !== undefined) {
      this.schemas ??= new Map()
      this.schemas.set(step.id, args.schema)
    }
    const issues: PlanIssue[] = []
    let tainted = checkReferences(step, tool, this.labels, issues)
    // Text written into a plan after untrusted output was seen may have been copied from it.
    const limit = this.seen.get(step.id) ?? this.index.size
    if (limit > 0 && paste && pasteMatters(this.policy, tool, args))
      tainted = this.checkPasted(tool, step, args, limit, tainted, issues)
    return { issues, tainted }
  }

  /**
   * The copied-text check: a refusing argument holding text of an untrusted output among the first
   * `limit` (seen before the step's plan) gets an issue, unless the text adds nothing (a path of
   * code named by code of the same ecosystem); returns whether the call now carries untrusted data.
   */
  private checkPasted(
    tool: ToolPolicy,
    step: CompiledStep,
    args: JsonObject,
    limit: number,
    tainted: boolean,
    issues: PlanIssue[],
  ): boolean {
    const leaves: Leaf[] = []
    for (const name of Object.keys(args)) {
      const spec = Object.hasOwn(tool.args, name) ? tool.args[name] : undefined
      collectLeaves(spec, valueAt(args, name), [name], spec === undefined, leaves)
    }
    let carries = tainted
    for (const leaf of leaves) {
      if (!leaf.refuses && carries) continue
      const origin = this.index.find(leaf.text, limit)
      if (origin === undefined) continue
      carries = true
      if (leaf.refuses && !(leaf.isPath === true && this.ownCode(origin, leaf.text))) {
        const source = originName(origin)
        issues.push(issueFor(step, leaf.path, [source, argumentName(step.id, leaf.path)], true))
      }
    }
    return carries
  }

  /** Whether a path copied from an output (by its step id) is code that output's own code names. */
  private ownCode(origin: string, path: string): boolean {
    const relative = workspaceRelative(path, this.policy.scope.roots)
    const sources = this.sources.get(origin)
    return relative !== undefined && sources !== undefined && namedByOwnCode(sources, relative)
  }

  /** Labels a finished step's output; `output` is its JSON value, or undefined if it has none. */
  record(step: CompiledStep, output: JsonValue | undefined, tainted: boolean): TrustLabel {
    const tool = this.policy.tools.get(step.tool)
    const schema = this.schemas?.get(step.id)
    this.schemas?.delete(step.id)
    const labels = this.labels
    const untrusted = outputIsUntrusted(this.policy, step, tool, output, tainted, labels, schema)
    const label: TrustLabel = untrusted ? 'untrusted' : 'trusted'
    labels.set(step.id, label)
    // A checked step's sources join the model's context when its output is untrusted.
    const own = this.origins.get(step.id)
    this.origins.delete(step.id)
    if (!untrusted) return label
    this.indexOutput(step.id, output, step.args)
    const found = [
      ...(own ?? this.ownSources(step, tool, step.args)),
      ...this.referenceSources(step),
    ]
    const sources = this.shared([...new Set(found)])
    this.sources.set(step.id, sources)
    for (const source of sources) this.context.add(source)
    return label
  }

  private ownSources(step: CompiledStep, tool: ToolPolicy | undefined, args: JsonObject): string[] {
    const values = tool === undefined ? [] : roleValues(tool, args)
    return outputSources(step.tool, tool, values, this.sourceContext)
  }

  private referenceSources(step: CompiledStep): string[] {
    const found: string[] = []
    for (const reference of step.references) {
      if (this.labels.get(reference.stepId) === 'trusted') continue
      found.push(...(this.sources.get(reference.stepId) ?? [`step:${reference.stepId}`]))
    }
    return found
  }

  /** The one frozen copy of a list of sources (the first 4,096 distinct lists are kept). */
  private shared(sources: string[]): readonly string[] {
    const key = JSON.stringify(sources)
    const known = this.lists?.get(key)
    if (known !== undefined) return known
    const frozen = Object.freeze(sources)
    this.lists ??= new Map()
    if (this.lists.size < 4096) this.lists.set(key, frozen)
    return frozen
  }

  /**
   * Labels content the model got outside a step (a resource read): untrusted unless the policy
   * trusts all tool output as it comes; `source` (named in refusals) has a space, unlike step ids.
   */
  recordContent(source: string, output: JsonValue | undefined): TrustLabel {
    const { policy } = this
    this.outsideTrusted ??= outsideContentIsTrusted(policy.policy, policy.tools.values())
    if (this.outsideTrusted) return 'trusted'
    this.indexOutput(source, output)
    this.context.add(source)
    return 'untrusted'
  }

  /**
   * Indexes one untrusted output's text, less echoes of its call's arguments; one not JSON
   * saturates the index. Where no copy can matter ({@link indexesText}) the output is counted, its
   * text left out: the index saturates from it on, so a run resumed under a policy that reads
   * copies refuses every long enough text written later (fail closed).
   */
  private indexOutput(origin: string, output: JsonValue | undefined, args?: JsonObject): void {
    if (!this.texts) {
      this.index.add(origin, NO_TEXTS, false)
      return
    }
    const texts: string[] = []
    if (output !== undefined) collectTexts(output, texts, true)
    const kept = args === undefined ? { texts, pieces: false } : withoutOwnEchoes(texts, args)
    this.index.add(origin, kept.texts, output !== undefined, kept.pieces)
  }

  /** What the run has combined so far: untrusted context, sensitive data, actions. */
  taintState(): TaintState {
    const { sensitive, acted } = this.flags
    return { untrusted: this.index.size > 0, sensitive, acted, sources: [...this.context] }
  }

  /** Records that an allowed call read sensitive data or acted. */
  noteCall(readsSensitive: boolean, acts: boolean): void {
    this.flags.sensitive ||= readsSensitive
    this.flags.acted ||= acts
  }

  /** Drops a step's label (its id now names another step); indexed text stays. */
  forget(stepId: string): void {
    this.labels.delete(stepId)
    this.sources.delete(stepId)
  }

  /**
   * The sources of the untrusted data a step's call carries (empty if none): of outputs it
   * references and, with `context`, all the model saw (per-turn mode: the model writes the call).
   */
  callSources(step: CompiledStep, context: boolean): readonly string[] {
    const found = this.referenceSources(step)
    // A state saved before sources were kept: the context is untrusted, of unknown origin.
    if (context && this.index.size > 0)
      found.push(...(this.context.size > 0 ? this.context : ['context']))
    return [...new Set(found)]
  }

  /** Labels a workspace file with the sources of what was written to it; none clears it. */
  labelFile(relative: string, sources: readonly string[]): void {
    if (sources.length === 0) this.files.delete(relative)
    else this.files.set(relative, [...new Set(sources)])
  }

  /** The workspace files written with untrusted data, each with its sources. */
  labelledFiles(): ReadonlyMap<string, readonly string[]> {
    return this.files
  }

  /** Counts a refusal put to a human; returns how many this run has put so far. */
  noteQuestion(): number {
    this.flags.questions += 1
    return this.flags.questions
  }

  toJSON(): UntrustedFlowState {
    return {
      labels: Object.fromEntries(this.labels),
      seen: Object.fromEntries(this.seen),
      text: this.index.toJSON(),
      ...this.rest(true),
    }
  }

  /** One step's entries of `toJSON()`: its label, its `seen` count and its sources. */
  stepJSON(stepId: string): FlowStepState {
    return {
      label: this.labels.get(stepId),
      seen: this.seen.get(stepId),
      sources: this.sources.get(stepId),
    }
  }

  /** `toJSON()` less what grows with the steps; of `text.outputs`, only those from `from` on. */
  summaryJSON(from: number): FlowSummaryState {
    const index = this.index
    const outputs = index.outputsFrom(from)
    const rest = this.rest(false)
    return { rest, saturatedAt: index.saturatedAt, outputs, outputCount: index.size }
  }

  /** The parts of `toJSON()` besides labels, seen counts and text, each left out when empty. */
  private rest(withSources: boolean): Omit<UntrustedFlowState, 'labels' | 'seen' | 'text'> {
    const { sensitive, acted, questions } = this.flags
    const sources = this.sources
    return {
      ...(sensitive ? { sensitive } : {}),
      ...(acted ? { acted } : {}),
      ...(withSources && sources.size > 0 ? { sources: Object.fromEntries(sources) } : {}),
      ...(this.context.size > 0 ? { context: [...this.context] } : {}),
      ...(this.files.size > 0 ? { files: Object.fromEntries(this.files) } : {}),
      ...(questions > 0 ? { questions } : {}),
    }
  }
}
