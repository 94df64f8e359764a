import type { CompiledPlan, CompiledStep } from '../types/compiled-plan.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import type { StepStatus } from '../types/plan-guard.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { canonicalJson } from '../util/canonical-json.js'
import { itemAt } from '../util/item-at.js'
import { freezeJson } from '../util/json-copy.js'
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
const NO_IDS: readonly string[] = Object.freeze([])
const NO_ISSUES: readonly PlanIssue[] = Object.freeze([])

function isEnded(state: StepStatus | undefined): boolean {
  return state === 'done' || state === 'failed' || state === 'skipped'
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key)
  if (list === undefined) map.set(key, [value])
  else list.push(value)
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
  readonly status = new Map<string, StepStatus>()
  readonly outputs = new Map<string, JsonValue>()
  readonly ready = new Map<string, ReadyEntry>()
  /** The call key each step ran with, to recognise a repeat of a finished call. */
  readonly ranWith = new Map<string, string>()
  /** Steps restored as running: their call started in an earlier process and never ended. */
  readonly interrupted = new Set<string>()
  /**
   * Calls whose refusal was put to a human and counted, by call id, with the denial's key: the
   * same refusal of a replayed call is not counted again within the plan.
   */
  readonly asked = new Map<string, string>()
  /** Steps of every plan installed so far, to carry finished work across re-plans and turns. */
  readonly knownSteps = new Map<string, CompiledStep>()
  private stepById = new Map<string, CompiledStep>()
  private stepsByTool = new Map<string, CompiledStep[]>()
  private dependents = new Map<string, string[]>()
  /** Remaining unfinished dependencies of each pending step of the current plan. */
  private waiting = new Map<string, number>()
  private readyByKey = new Map<string, CompiledStep[]>()
  private readonly checkArguments: ArgumentCheck

  constructor(checkArguments: ArgumentCheck = () => NO_ISSUES) {
    this.checkArguments = checkArguments
  }

  /** A step of the current plan. */
  step(stepId: string): CompiledStep | undefined {
    return this.stepById.get(stepId)
  }

  /** The steps of the current plan that call `tool`. */
  stepsOf(tool: string): readonly CompiledStep[] {
    return this.stepsByTool.get(tool) ?? NO_STEPS
  }

  /** The first ready step that accepts the call with key `key`. */
  readyStepFor(key: string): CompiledStep | undefined {
    return this.readyByKey.get(key)?.[0]
  }

  /** Dependencies of `step` that are not done. */
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
    // A refusal put to a human is replayed within its plan; a new plan counts afresh.
    if (!restoring) this.asked.clear()
    this.plan = next
    this.mode = mode
    // The first plan fills the maps made with the run; later plans start from new ones.
    if (this.stepById.size > 0) {
      this.stepById = new Map()
      this.stepsByTool = new Map()
      this.dependents = new Map()
      this.waiting = new Map()
    }
    for (const step of next.steps) {
      this.stepById.set(step.id, step)
      push(this.stepsByTool, step.tool, step)
      for (const dependency of step.dependsOn) push(this.dependents, dependency, step.id)
      if (!(restoring ? this.status.has(step.id) : this.carries(step))) {
        this.status.set(step.id, 'pending')
        this.outputs.delete(step.id)
        this.ranWith.delete(step.id)
        onReset(step.id)
      }
      this.knownSteps.set(step.id, step)
    }
    for (const step of next.steps) if (this.status.get(step.id) === 'pending') this.schedule(step)
  }

  /** True when an earlier plan's step with this id ran (or runs) the same call. */
  private carries(step: CompiledStep): boolean {
    const previous = this.knownSteps.get(step.id)
    const state = this.status.get(step.id)
    return (
      previous !== undefined &&
      (state === 'done' || state === 'running') &&
      previous.tool === step.tool &&
      canonicalJson(previous.args) === canonicalJson(step.args)
    )
  }

  /** A pending step of a new plan: skipped, ready or waiting, by its dependencies. */
  private schedule(step: CompiledStep): void {
    let remaining = 0
    for (const dependency of step.dependsOn) {
      const state = this.status.get(dependency)
      if (state === 'failed' || state === 'skipped') {
        this.status.set(step.id, 'skipped')
        return
      }
      if (state !== 'done') remaining += 1
    }
    if (remaining === 0) this.addReady(step)
    else this.waiting.set(step.id, remaining)
  }

  private addReady(step: CompiledStep): void {
    const resolved = resolveReferences(step, this.outputs)
    if (!resolved.success) {
      const issue = resolved.issue
      this.ready.set(step.id, { key: undefined, args: undefined, issue, argumentIssues: NO_ISSUES })
      return
    }
    const key = callKey(step.tool, canonicalJson(resolved.args))
    const argumentIssues = this.checkArguments(step, resolved.args)
    this.ready.set(step.id, {
      key,
      args: freezeJson(resolved.args),
      issue: undefined,
      argumentIssues,
    })
    push(this.readyByKey, key, step)
  }

  private removeReady(stepId: string): void {
    const entry = this.ready.get(stepId)
    if (entry === undefined) return
    this.ready.delete(stepId)
    if (entry.key === undefined) return
    const list = this.readyByKey.get(entry.key)
    if (list === undefined) return
    if (list.length === 1) {
      if (itemAt(list, 0).id === stepId) this.readyByKey.delete(entry.key)
      return
    }
    for (let index = 0; index < list.length; index += 1) {
      if (itemAt(list, index).id !== stepId) continue
      list.splice(index, 1)
      break
    }
  }

  /** ready → running, with the call key it runs with. */
  start(stepId: string, key: string): void {
    this.status.set(stepId, 'running')
    this.removeReady(stepId)
    this.ranWith.set(stepId, key)
  }

  /** running → ready (a retry, or an interrupted call approved again); false when not running. */
  release(stepId: string): boolean {
    const step = this.stepById.get(stepId)
    if (step === undefined || this.status.get(stepId) !== 'running') return false
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
    this.status.set(stepId, 'done')
    if (output === undefined) this.outputs.delete(stepId)
    else this.outputs.set(stepId, output)
    if (!this.stepById.has(stepId)) return true
    for (const dependent of this.dependents.get(stepId) ?? NO_IDS) {
      if (this.status.get(dependent) !== 'pending') continue
      const remaining = (this.waiting.get(dependent) ?? 1) - 1
      if (remaining > 0) {
        this.waiting.set(dependent, remaining)
        continue
      }
      this.waiting.delete(dependent)
      const step = this.stepById.get(dependent)
      if (step !== undefined) this.addReady(step)
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
    this.status.set(stepId, 'failed')
    this.removeReady(stepId)
    this.waiting.delete(stepId)
    const stack = [...(this.dependents.get(stepId) ?? NO_IDS)]
    while (stack.length > 0) {
      const id = stack.pop()
      if (id === undefined) break
      if (this.status.get(id) !== 'pending') continue
      this.status.set(id, 'skipped')
      this.removeReady(id)
      this.waiting.delete(id)
      stack.push(...(this.dependents.get(id) ?? NO_IDS))
    }
    return state
  }

  /** After a restore: the call keys of steps that ran, and the running ones as interrupted. */
  markRestored(): void {
    for (const step of this.plan?.steps ?? NO_STEPS) {
      const state = this.status.get(step.id)
      if (state !== 'done' && state !== 'running') continue
      const resolved = resolveReferences(step, this.outputs)
      if (resolved.success)
        this.ranWith.set(step.id, callKey(step.tool, canonicalJson(resolved.args)))
      if (state === 'running') this.interrupted.add(step.id)
    }
  }

  /** Steps whose dependencies are all done and that have not started, in plan order. */
  readySteps(): CompiledStep[] {
    return [...this.ready.keys()]
      .flatMap((id) => this.stepById.get(id) ?? [])
      .sort((left, right) => left.index - right.index)
  }

  /** Tools of the ready steps, and of interrupted calls (a repeat is told why it does not run). */
  readyTools(): string[] {
    const tools = [...this.ready.keys()].map((id) => this.stepById.get(id)?.tool ?? '')
    for (const id of this.interrupted)
      if (this.status.get(id) === 'running') tools.push(this.knownSteps.get(id)?.tool ?? '')
    return [...new Set(tools)].filter(Boolean)
  }

  /** Steps restored as running that still are (their call's end was never recorded). */
  interruptedSteps(): string[] {
    return [...this.interrupted].filter((stepId) => this.status.get(stepId) === 'running')
  }

  /** True when every step of the current plan is done, failed or skipped. */
  isComplete(): boolean {
    if (this.plan === undefined) return false
    return this.plan.steps.every((step) => isEnded(this.status.get(step.id)))
  }
}
