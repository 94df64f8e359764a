import { canonicalJson } from '@plan/json'
import { int32At, itemAt, type PlanIssue, stringAt } from '@plan/shell/common'
import { type PlanSteps, planSteps, stepsView } from '../compile/build-compiled-plan.js'
import type { CompiledPlan, CompiledStep } from '../types/compiled-plan.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import type { StepStatus } from '../types/plan-guard.js'
import { type DependentRows, dependentsAt } from '../util/dependent-rows.js'
import { freezeJson } from '../util/json-copy.js'
import { PositionMap } from '../util/position-map.js'
import { StepCodes } from '../util/step-codes.js'
import { StepValues } from '../util/step-values.js'
import { callKey } from './call-key.js'
import { resolveReferences } from './resolve-references.js'

/** How the current plan arrived: a whole plan, or one model turn's calls (per-turn mode). */
export type PlanMode = 'plan' | 'turn'

/** A ready step: the call it accepts, or why its references cannot be resolved. */
export interface ReadyEntry {
  /** `tool \0 canonical arguments`, or undefined when the references cannot be resolved. */
  readonly key: string | undefined
  readonly args: JsonObject | undefined
  readonly issue: PlanIssue | undefined
  /**
   * What the argument check found in `args`, checked once when the step became ready: a call
   * is matched only when its arguments equal `args`, and the check depends on nothing else.
   */
  readonly argumentIssues: readonly PlanIssue[]
}

/** Checks a ready step's resolved arguments against the policy (a pure function). */
export type ArgumentCheck = (step: CompiledStep, args: JsonObject) => readonly PlanIssue[]

const NO_STEPS: readonly CompiledStep[] = Object.freeze([])
const STATUSES: readonly StepStatus[] = ['pending', 'running', 'done', 'failed', 'skipped']
const NO_ISSUES: readonly PlanIssue[] = Object.freeze([])
// What a run holds before its first plan, shared: nothing writes them (`install` replaces them).
const NO_PLAN_STEPS: PlanSteps = stepsView(NO_STEPS)
const NO_DEPENDENTS: DependentRows = { starts: new Int32Array(1), targets: new Int32Array(0) }
const NO_WAITING = new Int32Array(0)
const NO_TOOLS: ReadonlyMap<string, Int32Array> = new Map()

/**
 * A step's call key in `RunState.#ranWith` when it is the key of its planned arguments (never a
 * key: every key holds a NUL); {@link RunState.ranKey} makes the key again from the step.
 */
const PLANNED_CALL = ''

/** No references, frozen args (a compiled plan's): the step's call key is that of `step.args`. */
function isPlannedCall(step: CompiledStep): boolean {
  return step.references.length === 0 && Object.isFrozen(step.args)
}

function isEnded(state: StepStatus | undefined): boolean {
  return state === 'done' || state === 'failed' || state === 'skipped'
}

// The positions by tool of a plan of one step (a turn's one call), shared: they are only read.
const FIRST_ONLY = new Int32Array(1)

/** The positions of `steps` by tool, each tool's in plan order (typed arrays of their exact size). */
function positionsByTool(steps: PlanSteps): Map<string, Int32Array> {
  if (steps.size === 1) return new Map([[steps.tool(0), FIRST_ONLY]])
  const counts = new Map<string, number>()
  for (let position = 0; position < steps.size; position += 1) {
    const tool = steps.tool(position)
    counts.set(tool, (counts.get(tool) ?? 0) + 1)
  }
  const byTool = new Map<string, Int32Array>()
  for (const [tool, count] of counts) byTool.set(tool, new Int32Array(count))
  for (const tool of counts.keys()) counts.set(tool, 0)
  for (let position = 0; position < steps.size; position += 1) {
    const tool = steps.tool(position)
    const filled = counts.get(tool) ?? 0
    const positions = byTool.get(tool)
    if (positions !== undefined) positions[filled] = position
    counts.set(tool, filled + 1)
  }
  return byTool
}

/**
 * The steps of a guarded run and their statuses: which are ready (and for which call), which
 * wait, run or ended, and the outputs of finished ones. A state machine with no clock, no
 * policy and no I/O: the guard decides, this records.
 *
 * pending → ready (dependencies done) → running → done | failed; running → ready (release);
 * pending → skipped (a dependency failed or was skipped).
 */
export class RunState {
  plan: CompiledPlan | undefined
  mode: PlanMode = 'plan'
  /** Kept by position for the current plan's steps (a byte each), like {@link outputs}. */
  readonly status = new StepCodes<StepStatus>(STATUSES)
  readonly outputs = new StepValues<JsonValue>()
  /** The ready steps of the current plan, by position (see {@link PositionMap}). */
  readonly ready = new PositionMap<ReadyEntry>()
  /**
   * The call key each step ran with, to recognise a repeat of a finished call (see
   * {@link ranKey}): {@link PLANNED_CALL} for a step that ran its planned call.
   */
  private readonly ranWith = new StepValues<string>()
  /** Steps restored as running: their call started in an earlier process and never ended. */
  readonly interrupted = new Set<string>()
  /**
   * Calls whose refusal was put to a human and counted, by call id, with the denial's key: the
   * same refusal of a replayed call is not counted again within the plan.
   */
  readonly asked = new Map<string, string>()
  /** Steps of earlier plans whose ids the current plan does not use (see {@link knownStep}). */
  private earlier: Map<string, CompiledStep> | undefined
  /**
   * While changes are tracked: the steps whose status or output changed since the tracker last
   * read them (the steps of a newly installed plan are not added; the tracker reads the plan).
   */
  changed: Set<string> | undefined
  /** The current plan's steps by position, read from its columns (no step object is kept). */
  private stepsNow: PlanSteps = NO_PLAN_STEPS

  get steps(): PlanSteps {
    return this.stepsNow
  }
  /** Positions of the current plan's steps, by tool, in plan order. */
  private stepsByTool: ReadonlyMap<string, Int32Array> = NO_TOOLS
  /** The dependents of each step of the current plan, by position (`index`). */
  private dependents: DependentRows = NO_DEPENDENTS
  /** Remaining unfinished dependencies of each pending step of the current plan. */
  private waiting = NO_WAITING
  /** Ready steps by call key: the step itself, or a list only when several share the key. */
  private readyByKey = new Map<string, CompiledStep | CompiledStep[]>()
  private readonly checkArguments: ArgumentCheck
  /**
   * True when every plan installed was validated under `checkArguments`' policy: a step without
   * references has the arguments validation checked (and found nothing in), not checked again.
   */
  private readonly validatedPlans: boolean

  /** @param validatedPlans install gets only plans validated under `checkArguments`' policy */
  constructor(checkArguments: ArgumentCheck = () => NO_ISSUES, validatedPlans = false) {
    this.checkArguments = checkArguments
    this.validatedPlans = validatedPlans
  }

  step(stepId: string): CompiledStep | undefined {
    const position = this.stepsNow.positions.get(stepId)
    return position === undefined ? undefined : this.stepsNow.step(position)
  }

  /** The latest step with this id of any plan installed, to carry finished work across plans. */
  knownStep(stepId: string): CompiledStep | undefined {
    return this.step(stepId) ?? this.earlier?.get(stepId)
  }

  stepsOf(tool: string): readonly CompiledStep[] {
    const positions = this.stepsByTool.get(tool)
    return positions === undefined
      ? NO_STEPS
      : Array.from(positions, (at) => this.stepsNow.step(at))
  }

  /** The first ready step that accepts the call with key `key`. */
  readyStepFor(key: string): CompiledStep | undefined {
    const ready = this.readyByKey.get(key)
    return Array.isArray(ready) ? ready[0] : ready
  }

  unmetDependencies(step: CompiledStep): string[] {
    return step.dependsOn.filter((dependency) => this.status.get(dependency) !== 'done')
  }

  /**
   * Makes `next` the current plan. A step of an earlier plan that is done or running with the
   * same tool and arguments keeps its status and output (all restored steps do); any other
   * step starts pending, and `onReset` is told its id.
   */
  install(
    next: CompiledPlan,
    mode: PlanMode,
    restoring: boolean,
    onReset: (stepId: string) => void,
  ): void {
    if (this.ready.size > 0) for (const stepId of [...this.ready.keys()]) this.removeReady(stepId)
    if (!restoring) this.asked.clear()
    const before = this.stepsNow
    const steps = planSteps(next)
    const { ids, positions } = steps
    this.plan = next
    this.mode = mode
    this.stepsNow = steps
    for (const values of [this.status, this.outputs, this.ranWith]) values.place(ids, positions)
    this.ready.place(ids, positions)
    this.stepsByTool = positionsByTool(steps)
    for (let position = 0; position < steps.size; position += 1) {
      const stepId = stringAt(ids, position)
      if (!(restoring ? this.status.has(stepId) : this.carries(steps, position, before))) {
        this.status.set(stepId, 'pending')
        this.outputs.delete(stepId)
        this.ranWith.delete(stepId)
        onReset(stepId)
      }
      this.earlier?.delete(stepId)
    }
    this.dependents = steps.dependents()
    // Only a step with dependencies ever waits: a plan without any (a turn's) needs no counts.
    this.waiting = this.dependents.targets.length === 0 ? NO_WAITING : new Int32Array(steps.size)
    for (let position = 0; position < before.size; position += 1) {
      const stepId = stringAt(before.ids, position)
      if (positions.has(stepId)) continue
      this.earlier ??= new Map()
      this.earlier.set(stepId, before.step(position))
    }
    for (let position = 0; position < steps.size; position += 1)
      if (this.status.get(stringAt(ids, position)) === 'pending') this.schedule(position)
  }

  /**
   * True when the step at `position` of `steps` ran (or runs) the same call as the earlier
   * plan's step with its id (in `before`, else in an earlier plan).
   */
  private carries(steps: PlanSteps, position: number, before: PlanSteps): boolean {
    const stepId = stringAt(steps.ids, position)
    const state = this.status.get(stepId)
    if (state !== 'done' && state !== 'running') return false
    const at = before.positions.get(stepId)
    const previous = at === undefined ? this.earlier?.get(stepId) : before.step(at)
    if (previous === undefined || previous.tool !== steps.tool(position)) return false
    const step = steps.step(position)
    const planned = canonicalJson(previous.args)
    if (planned !== canonicalJson(step.args)) return false
    // The key is made again from the step that now has the id: the same, while it stays frozen.
    if (this.ranPlannedCall(stepId) && !isPlannedCall(step))
      this.ranWith.set(stepId, callKey(previous.tool, planned))
    return true
  }

  /** A pending step of a new plan: skipped, ready or waiting, by its dependencies. */
  private schedule(position: number): void {
    const { ids } = this.stepsNow
    const dependencies = this.stepsNow.dependencies(position)
    let remaining = 0
    for (let edge = 0; edge < dependencies.length; edge += 1) {
      const state = this.status.get(stringAt(ids, itemAt(dependencies, edge)))
      if (state === 'failed' || state === 'skipped') {
        this.status.set(stringAt(ids, position), 'skipped')
        return
      }
      if (state !== 'done') remaining += 1
    }
    if (remaining === 0) this.addReady(this.stepsNow.step(position))
    else this.waiting[position] = remaining
  }

  private addReady(step: CompiledStep): void {
    const resolved = resolveReferences(step, this.outputs)
    if (!resolved.success) {
      const issue = resolved.issue
      this.ready.set(step.id, { key: undefined, args: undefined, issue, argumentIssues: NO_ISSUES })
      return
    }
    const key = callKey(step.tool, canonicalJson(resolved.args))
    const argumentIssues =
      this.validatedPlans && step.references.length === 0
        ? NO_ISSUES
        : this.checkArguments(step, resolved.args)
    this.ready.set(step.id, {
      key,
      args: freezeJson(resolved.args),
      issue: undefined,
      argumentIssues,
    })
    const sharing = this.readyByKey.get(key)
    if (sharing === undefined) this.readyByKey.set(key, step)
    else if (Array.isArray(sharing)) sharing.push(step)
    else this.readyByKey.set(key, [sharing, step])
  }

  private removeReady(stepId: string): void {
    const entry = this.ready.get(stepId)
    if (entry === undefined) return
    this.ready.delete(stepId)
    if (entry.key === undefined) return
    const list = this.readyByKey.get(entry.key)
    if (list === undefined) return
    if (!Array.isArray(list)) {
      if (list.id === stepId) this.readyByKey.delete(entry.key)
      return
    }
    const index = list.findIndex((step) => step.id === stepId)
    if (index >= 0) list.splice(index, 1)
    if (list.length === 1) this.readyByKey.set(entry.key, itemAt(list, 0))
  }

  /** ready → running, with the call key it runs with. */
  start(stepId: string, key: string): void {
    this.changed?.add(stepId)
    this.status.set(stepId, 'running')
    // The ready entry's key of a planned call is its planned key: kept as a mark, not a string.
    const step = this.ready.get(stepId)?.key === key ? this.step(stepId) : undefined
    this.removeReady(stepId)
    this.ranWith.set(stepId, step !== undefined && isPlannedCall(step) ? PLANNED_CALL : key)
  }

  /** The call key the step ran (or runs) with, or undefined when it has not started. */
  ranKey(stepId: string): string | undefined {
    const kept = this.ranWith.get(stepId)
    if (kept !== PLANNED_CALL) return kept
    const step = this.knownStep(stepId)
    return step === undefined ? undefined : callKey(step.tool, canonicalJson(step.args))
  }

  /**
   * Whether the step ran (or runs) its planned arguments, with no references: the call key is
   * then that of `step.args`, and a call whose arguments differ from them is not its call.
   */
  ranPlannedCall(stepId: string): boolean {
    return this.ranWith.get(stepId) === PLANNED_CALL
  }

  /** running → ready (a retry, or an interrupted call approved again); false when not running. */
  release(stepId: string): boolean {
    const step = this.step(stepId)
    if (step === undefined || this.status.get(stepId) !== 'running') return false
    this.changed?.add(stepId)
    this.status.set(stepId, 'pending')
    this.interrupted.delete(stepId)
    this.ranWith.delete(stepId)
    this.addReady(step)
    return true
  }

  /**
   * running → done, keeping `output` (JSON) for references, or none; dependents whose
   * dependencies are now all done become ready. False when the step was not running.
   */
  complete(stepId: string, output: JsonValue | undefined): boolean {
    if (this.status.get(stepId) !== 'running') return false
    this.changed?.add(stepId)
    this.status.set(stepId, 'done')
    if (output === undefined) this.outputs.delete(stepId)
    else this.outputs.set(stepId, output)
    const finished = this.stepsNow.positions.get(stepId)
    if (finished === undefined) return true
    const { ids } = this.stepsNow
    for (const position of dependentsAt(this.dependents, finished)) {
      if (this.status.get(stringAt(ids, position)) !== 'pending') continue
      const left = int32At(this.waiting, position)
      const remaining = (left === 0 ? 1 : left) - 1
      this.waiting[position] = remaining
      if (remaining === 0) this.addReady(this.stepsNow.step(position))
    }
    return true
  }

  /**
   * running or pending → failed; every step depending on it, directly or not, is skipped.
   * Answers the status it had, or undefined when it could not fail.
   */
  fail(stepId: string): 'running' | 'pending' | undefined {
    const state = this.status.get(stepId)
    if (state !== 'running' && state !== 'pending') return undefined
    this.changed?.add(stepId)
    this.status.set(stepId, 'failed')
    this.removeReady(stepId)
    const failed = this.stepsNow.positions.get(stepId)
    if (failed === undefined) return state
    this.waiting[failed] = 0
    const { ids } = this.stepsNow
    const stack = [...dependentsAt(this.dependents, failed)]
    while (stack.length > 0) {
      const position = stack.pop() ?? -1
      const id = stringAt(ids, position)
      if (this.status.get(id) !== 'pending') continue
      this.changed?.add(id)
      this.status.set(id, 'skipped')
      this.removeReady(id)
      this.waiting[position] = 0
      for (const dependent of dependentsAt(this.dependents, position)) stack.push(dependent)
    }
    return state
  }

  /** After a restore: the call keys of steps that ran, and the running ones as interrupted. */
  markRestored(): void {
    const { ids, size } = this.stepsNow
    for (let position = 0; position < size; position += 1) {
      const state = this.status.get(stringAt(ids, position))
      if (state !== 'done' && state !== 'running') continue
      const step = this.stepsNow.step(position)
      const resolved = resolveReferences(step, this.outputs)
      if (resolved.success)
        this.ranWith.set(
          step.id,
          isPlannedCall(step) ? PLANNED_CALL : callKey(step.tool, canonicalJson(resolved.args)),
        )
      if (state === 'running') this.interrupted.add(step.id)
    }
  }

  /** Steps whose dependencies are all done and that have not started, in plan order. */
  readySteps(): CompiledStep[] {
    return [...this.ready.keys()]
      .flatMap((id) => this.step(id) ?? [])
      .sort((left, right) => left.index - right.index)
  }

  /** Tools of the ready steps, and of interrupted calls (a repeat is told why it does not run). */
  readyTools(): string[] {
    const tools = [...this.ready.keys()].map((id) => this.step(id)?.tool ?? '')
    for (const id of this.interrupted)
      if (this.status.get(id) === 'running') tools.push(this.knownStep(id)?.tool ?? '')
    return [...new Set(tools)].filter(Boolean)
  }

  /** Steps restored as running that still are (their call's end was never recorded). */
  interruptedSteps(): string[] {
    return [...this.interrupted].filter((stepId) => this.status.get(stepId) === 'running')
  }

  /** True when every step of the current plan is done, failed or skipped. */
  isComplete(): boolean {
    if (this.plan === undefined) return false
    return this.stepsNow.ids.every((stepId) => isEnded(this.status.get(stepId)))
  }
}
