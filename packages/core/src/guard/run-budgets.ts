import type { PlanIssue } from '@plan/shell/common'
import { detachedHasher } from '../compile/build-compiled-plan.js'
import type { Policy } from '../schema/policy-schema.js'
import type { CompiledPlan } from '../types/compiled-plan.js'
import { runIssue } from '../util/run-issue.js'
import { type BudgetCounters, emptyCounters } from './budget-counters.js'

type Budgets = Policy['budgets']

/** Plans noted for `seenPlanHashes` that are kept unhashed at most. */
const MAX_UNHASHED = 256
/** Longest text of a short plan's hash kept unhashed (a turn's one call is a few hundred). */
const MAX_PLAN_TEXT = 4096
/** Characters of short plans' texts kept unhashed at most, in all. */
const MAX_UNHASHED_TEXT = 4 * 1024 * 1024

/** A run's budgets: counters, plans seen, clock and stop; pure apart from `onStop` (told once). */
export class RunBudgets {
  private tally: BudgetCounters = emptyCounters()
  // The key of the last call counted and its repeats, kept outside `identicalCalls` so that a
  // call does not empty and refill a map; undefined while the map is up to date.
  private lastKey: string | undefined
  private lastRepeats = 0
  startedAt: number
  stopped: PlanIssue | undefined

  private readonly planHashes = new Set<string>()
  /**
   * Approved plans, or for short ones their detached hashers (which hold no plan), whose hashes
   * join `seenPlanHashes` when it is first read after them.
   */
  private readonly unhashed: { readonly hash: string }[] = []
  /** Plans held in {@link RunBudgets.unhashed}, and characters of text its hashers keep. */
  private unhashedPlans = 0
  private unhashedText = 0
  /**
   * `seenPlanHashes` in the order they were added, while its length is the set's size (the set
   * only grows; one added to the set itself puts it out of step until it is next read).
   */
  private readonly hashOrder: string[] = []

  /** @param toolLimit the most calls of one tool in the run (its own limit or the policy's) */
  constructor(
    private readonly budgets: Budgets,
    private readonly toolLimit: (tool: string) => number | undefined,
    private readonly now: () => number,
    private readonly onStop: (issue: PlanIssue) => void,
  ) {
    this.startedAt = now()
  }

  /** The run's counters (`identicalCalls` brought up to date with the last call). */
  get counters(): BudgetCounters {
    const key = this.lastKey
    if (key !== undefined) {
      const identical = this.tally.identicalCalls
      if (identical.size !== 1 || !identical.has(key)) identical.clear()
      identical.set(key, this.lastRepeats)
      this.lastKey = undefined
    }
    return this.tally
  }

  set counters(counters: BudgetCounters) {
    this.tally = counters
    this.lastKey = undefined
  }

  /** How many times the call with key `key` was counted with nothing else between. */
  private repeatsOf(key: string): number {
    const last = this.lastKey
    if (last !== undefined) return last === key ? this.lastRepeats : 0
    return this.tally.identicalCalls.get(key) ?? 0
  }

  /**
   * Hashes of the plans approved in the run, in approval order (a re-plan with one of them is a
   * loop). Plans noted with {@link notePlan} are hashed here, when something reads the set.
   */
  get seenPlanHashes(): Set<string> {
    if (this.unhashed.length > 0) this.hashNoted()
    return this.planHashes
  }

  /** An approved plan, added to `seenPlanHashes` once that is read (its hash may be lazy). */
  notePlan(plan: CompiledPlan): void {
    const hasher = detachedHasher(plan, MAX_PLAN_TEXT)
    this.unhashed.push(hasher ?? plan)
    if (hasher === undefined) this.unhashedPlans += 1
    else this.unhashedText += hasher.keptLength
    // A long run that never reads the set keeps no more than this for it.
    if (this.unhashedPlans >= MAX_UNHASHED || this.unhashedText >= MAX_UNHASHED_TEXT)
      this.hashNoted()
  }

  private hashNoted(): void {
    const hashes = this.planHashes
    for (const plan of this.unhashed) {
      const hash = plan.hash
      const inStep = this.hashOrder.length === hashes.size
      if (inStep && !hashes.has(hash)) this.hashOrder.push(hash)
      hashes.add(hash)
    }
    this.unhashed.length = 0
    this.unhashedPlans = 0
    this.unhashedText = 0
  }

  /** `seenPlanHashes` from `start` on, in added order: a save of changes costs only those. */
  planHashesFrom(start: number): string[] {
    const hashes = this.seenPlanHashes
    if (this.hashOrder.length !== hashes.size) {
      this.hashOrder.length = 0
      for (const hash of hashes) this.hashOrder.push(hash)
    }
    return this.hashOrder.slice(start)
  }

  /** Stops the run (the first reason wins) and answers the reason it stopped for. */
  stop(issue: PlanIssue): PlanIssue {
    if (this.stopped === undefined) {
      this.stopped = issue
      this.onStop(issue)
    }
    return this.stopped
  }

  /** Why the run is stopped (now, possibly because its deadline passed), if it is. */
  stopReason(): PlanIssue | undefined {
    if (this.stopped !== undefined) return this.stopped
    const deadline = this.budgets.deadlineMs
    if (deadline !== undefined && this.now() - this.startedAt >= deadline) {
      return this.stop(
        runIssue(
          'deadline_exceeded',
          `The run has passed its deadline of ${deadline} ms.`,
          'Stop calling tools and report what was done.',
        ),
      )
    }
    return this.denialPause()
  }

  /** With `denialWindowSeconds`: the refusal of every call while this window has too many denials. */
  private denialPause(): PlanIssue | undefined {
    const { budgets } = this
    const counters = this.tally
    const window = budgets.denialWindowSeconds
    if (window === undefined || counters.denials <= budgets.maxDenials) return undefined
    const left = counters.denialWindowStart + window * 1000 - this.now()
    if (left <= 0) return undefined
    return runIssue(
      'budget_exhausted',
      `${counters.denials} requests were denied in this window of ${window} s (at most ${budgets.maxDenials}); calls are refused for ${Math.ceil(left / 1000)} s more.`,
      'Stop proposing calls the policy refuses; report what is blocking the task, or wait for the window to end.',
    )
  }

  /** With `denialWindowSeconds`: starts a new window of denials once the last one has ended. */
  private rollDenialWindow(): void {
    const window = this.budgets.denialWindowSeconds
    if (window === undefined) return
    const counters = this.tally
    const now = this.now()
    if (now - counters.denialWindowStart < window * 1000) return
    counters.denialWindowStart = now
    counters.denials = 0
    counters.deniedRepeats.clear()
  }

  /** Why one more call of `tool` (with call key `key`, as step `stepId`) exceeds a budget. */
  checkCall(tool: string, key: string, stepId: string): PlanIssue | undefined {
    const { budgets } = this
    const counters = this.tally
    const exhausted = this.callsExhausted(
      `The run has made its ${budgets.maxCalls} allowed tool calls.`,
      'Stop calling tools and report what was done.',
      stepId,
    )
    if (exhausted !== undefined) return exhausted
    const toolLimit = this.toolLimit(tool)
    if (toolLimit !== undefined && (counters.callsPerTool.get(tool) ?? 0) >= toolLimit) {
      return runIssue(
        'budget_exhausted',
        `Tool ${JSON.stringify(tool)} has made its ${toolLimit} allowed calls in this run.`,
        'Use another tool or stop.',
        stepId,
      )
    }
    if (this.repeatsOf(key) >= budgets.maxIdenticalCalls) {
      return runIssue(
        'repeated_call',
        `This exact ${JSON.stringify(tool)} call has already been made ${budgets.maxIdenticalCalls} times in this run.`,
        'Do not repeat the same call; change the approach or stop.',
        stepId,
      )
    }
    return undefined
  }

  /**
   * Why one more read exceeds `maxCalls` (a read is a call), stopping the run as a call does; else
   * counts it. Exempt from `maxIdenticalCalls`: a client reads a subscribed resource on change.
   */
  countRead(): PlanIssue | undefined {
    const exhausted = this.callsExhausted(
      `The run has made its ${this.budgets.maxCalls} allowed calls (tool calls and resource reads).`,
      'Stop calling tools and reading resources, and report what was done.',
    )
    if (exhausted === undefined) this.tally.calls += 1
    return exhausted
  }

  /** The issue that stops the run when it has made `maxCalls` calls already, else undefined. */
  private callsExhausted(message: string, hint: string, stepId?: string): PlanIssue | undefined {
    const { maxCalls } = this.budgets
    if (maxCalls === undefined || this.tally.calls < maxCalls) return undefined
    return this.stop(runIssue('budget_exhausted', message, hint, stepId))
  }

  /** Counts a call that starts. Identical calls count only while nothing else happened between. */
  countCall(tool: string, key: string): void {
    const counters = this.tally
    counters.calls += 1
    counters.callsPerTool.set(tool, (counters.callsPerTool.get(tool) ?? 0) + 1)
    this.lastRepeats = this.repeatsOf(key) + 1
    this.lastKey = key
  }

  /** A write succeeded: the same calls may now do something else, so repeats count from zero. */
  forgetRepeats(): void {
    this.lastKey = undefined
    const { identicalCalls, turns } = this.tally
    if (identicalCalls.size > 0) identicalCalls.clear()
    if (turns.size > 0) turns.clear()
  }

  /**
   * Counts a denial (a call, or a rejected per-turn batch, by `key`); stops the run when the
   * same one keeps coming back or too many were denied (with `denialWindowSeconds`, answers the
   * issue and refuses calls until the window ends instead). Denials after a stop are not counted.
   */
  countDenial(key: string | undefined): PlanIssue | undefined {
    const { budgets } = this
    const counters = this.tally
    if (this.stopped !== undefined) return undefined
    this.rollDenialWindow()
    counters.denials += 1
    const repeats = key === undefined ? 0 : (counters.deniedRepeats.get(key) ?? 0) + 1
    if (key !== undefined) counters.deniedRepeats.set(key, repeats)
    const scope = budgets.denialWindowSeconds === undefined ? 'run' : 'window'
    let issue: PlanIssue | undefined
    if (repeats > budgets.maxIdenticalCalls) {
      issue = runIssue(
        'repeated_call',
        `The same denied request was made ${repeats} times in this ${scope} (at most ${budgets.maxIdenticalCalls}).`,
        'Stop repeating a request the policy refuses; report what is blocking the task.',
      )
    } else if (counters.denials > budgets.maxDenials) {
      issue = runIssue(
        'budget_exhausted',
        `${counters.denials} requests were denied in this ${scope} (at most ${budgets.maxDenials}).`,
        'Stop proposing calls the policy refuses; report what is blocking the task.',
      )
    }
    if (issue === undefined || scope === 'window') return issue
    return this.stop(issue)
  }

  /** Counts a re-plan; stops the run past `maxReplans`. */
  countReplan(): PlanIssue | undefined {
    this.tally.replans += 1
    if (this.tally.replans <= this.budgets.maxReplans) return undefined
    return this.stop(
      runIssue(
        'replan_loop',
        `More than ${this.budgets.maxReplans} re-plans in one run.`,
        'Stop re-planning and report what is blocking the task.',
      ),
    )
  }

  /** Stops the run when a re-plan comes back with a plan already submitted. */
  checkReplanHash(hash: string): PlanIssue | undefined {
    if (!this.seenPlanHashes.has(hash)) return undefined
    return this.stop(
      runIssue(
        'replan_loop',
        'This plan was already submitted in this run; re-submitting it is a loop.',
        'Change the plan or stop and report what is blocking the task.',
      ),
    )
  }

  /** Counts a per-turn batch by its signature; stops the run when the same turn repeats. */
  countTurn(signature: string): PlanIssue | undefined {
    const { turns } = this.tally
    const count = (turns.get(signature) ?? 0) + 1
    turns.clear()
    if (count > this.budgets.maxIdenticalCalls) {
      return this.stop(
        runIssue(
          'repeated_call',
          `The same tool calls were requested ${count} times in this run (at most ${this.budgets.maxIdenticalCalls}).`,
          'Do not repeat the same calls; change the approach or stop.',
        ),
      )
    }
    turns.set(signature, count)
    return undefined
  }
}
