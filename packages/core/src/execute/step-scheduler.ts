import { int32At } from '@plan/shell/common'
import { ReadyQueue } from './ready-queue.js'
import type { StepGraph } from './step-graph.js'

/**
 * Starts one step. Calls `launched` once the step's work is under way (its tool was called), so
 * the next ready step can start; resolves when the step has ended, whatever its outcome.
 */
export type StepLauncher = (stepId: string, launched: () => void) => Promise<void>

/** What a {@link StepScheduler} needs besides the graph. */
export interface StepSchedulerOptions {
  /** Most steps running at once (at least 1; `Infinity` for no limit). */
  readonly concurrency: number
  readonly launch: StepLauncher
  /** Nothing is running and nothing is ready: the run is over. */
  readonly onIdle: () => void
  /** A launcher rejected (a bug in the executor itself). */
  readonly onError: (stepId: string, error: unknown) => void
  /**
   * Runs a callback after pending I/O: a step whose start is still awaiting I/O then stops
   * holding back the next one. Defaults to `setImmediate` (or `setTimeout(…, 0)`).
   */
  readonly defer?: (callback: () => void) => void
}

const defaultDefer: (callback: () => void) => void =
  typeof globalThis.setImmediate === 'function'
    ? (callback) => {
        globalThis.setImmediate(callback)
      }
    : (callback) => {
        setTimeout(callback, 0)
      }

/**
 * Runs a DAG's steps as their dependencies finish: a ready step joins a priority queue (longest
 * remaining chain first, then plan order) and starts when a slot is free. Steps start one at a
 * time, the next once the previous has called its tool (or after pending I/O if its start awaits
 * some): of many steps ready at once, the most critical reaches its tool first, not after all are
 * authorized. Event-driven: no polling, no timers on the common path, O(log n) per step.
 */
export class StepScheduler {
  readonly #graph: StepGraph
  readonly #options: StepSchedulerOptions
  readonly #defer: (callback: () => void) => void
  readonly #queue: ReadyQueue
  /** Unfinished dependencies of each waiting step, by position; 0 for a step that does not wait. */
  readonly #waiting: Int32Array
  #active = 0
  #launches = 0
  /** The launch that holds back the next one, if any. */
  #gate: number | undefined
  #pumping = false
  #stopped = false
  /** The launch a pending deferred release is for, if one is pending. */
  #deferredFor: number | undefined

  constructor(graph: StepGraph, options: StepSchedulerOptions) {
    this.#graph = graph
    this.#options = options
    this.#defer = options.defer ?? defaultDefer
    this.#queue = new ReadyQueue(graph.priority)
    this.#waiting = new Int32Array(graph.size)
  }

  /** Steps started and not yet ended. */
  get active(): number {
    return this.#active
  }

  /** Steps ready and waiting for a slot. */
  get queued(): number {
    return this.#queue.size
  }

  /** Adds a step whose dependencies are all done. */
  ready(stepId: string): void {
    const position = this.#graph.position(stepId)
    if (!this.#stopped && position >= 0) this.#queue.push(position)
  }

  /** Adds a step that waits for `unmet` more dependencies to complete. */
  wait(stepId: string, unmet: number): void {
    const position = this.#graph.position(stepId)
    if (unmet > 0 && position >= 0) this.#waiting[position] = unmet
    else this.ready(stepId)
  }

  /** A waiting step will not run (it was skipped): completions no longer count towards it. */
  forget(stepId: string): void {
    const position = this.#graph.position(stepId)
    if (position >= 0) this.#waiting[position] = 0
  }

  isWaiting(stepId: string): boolean {
    const position = this.#graph.position(stepId)
    return position >= 0 && int32At(this.#waiting, position) > 0
  }

  /**
   * A step finished successfully: its dependents with no unfinished dependency become ready and
   * start now if a slot is free (the finished step keeps its own slot until its launch ends).
   */
  completed(stepId: string): void {
    let released = false
    const position = this.#graph.position(stepId)
    if (position < 0) return
    const waiting = this.#waiting
    for (const dependent of this.#graph.dependentPositions(position)) {
      const left = int32At(waiting, dependent)
      if (left === 0) continue
      waiting[dependent] = left - 1
      if (left === 1 && !this.#stopped) {
        this.#queue.push(dependent)
        released = true
      }
    }
    // Dependents start here, not when the finished launch settles: fewer promise hops per step.
    if (released) this.pump()
  }

  /** Starts no more steps; queued ones are dropped (running ones are the caller's to stop). */
  stop(): void {
    this.#stopped = true
    this.#queue.drain()
    this.#waiting.fill(0)
  }

  /** Starts ready steps while slots are free; calls `onIdle` when nothing is left to do. */
  pump(): void {
    if (this.#pumping) return
    this.#pumping = true
    try {
      while (
        !this.#stopped &&
        this.#gate === undefined &&
        this.#active < this.#options.concurrency &&
        this.#queue.size > 0
      )
        this.#launch(this.#graph.id(this.#queue.pop() ?? -1))
    } finally {
      this.#pumping = false
    }
    if (!this.#stopped && this.#active === 0 && this.#queue.size === 0) this.#options.onIdle()
  }

  #launch(stepId: string): void {
    this.#active += 1
    this.#launches += 1
    const launch = this.#launches
    this.#gate = launch
    const release = () => {
      if (this.#gate !== launch) return
      this.#gate = undefined
      this.pump()
    }
    const ended = () => {
      this.#active -= 1
      if (this.#gate === launch) this.#gate = undefined
      this.pump()
    }
    let running: Promise<void>
    try {
      running = this.#options.launch(stepId, release)
    } catch (error) {
      running = Promise.reject(error)
    }
    running.then(ended, (error: unknown) => {
      this.#options.onError(stepId, error)
      ended()
    })
    if (this.#gate === launch) this.#releaseLater(launch)
  }

  // One deferred callback at a time: it releases the launch still holding the gate since it was
  // scheduled, or follows the launch that holds it now.
  #releaseLater(launch: number): void {
    if (this.#deferredFor !== undefined) return
    this.#deferredFor = launch
    this.#defer(() => {
      const holder = this.#deferredFor
      this.#deferredFor = undefined
      if (this.#gate === undefined) return
      if (this.#gate !== holder) {
        this.#releaseLater(this.#gate)
        return
      }
      this.#gate = undefined
      this.pump()
    })
  }
}
