/**
 * The commands of a run that are running now, as far as labels go: those that may write files
 * from untrusted data (with the sources of that data), and those that execute workspace files.
 * A writer's files are labelled only when it ends, so the two must not run side by side.
 */
export class RunningCommands {
  readonly #writers = new Map<string, readonly string[]>()
  readonly #executors = new Set<string>()

  /** A step's command started: one that `writes` from `sources`, or one that `runs` files. */
  started(stepId: string, kind: 'writes' | 'runs', sources: readonly string[] = []): void {
    if (kind === 'writes') this.#writers.set(stepId, sources)
    else this.#executors.add(stepId)
  }

  /** A step's command ended (done, failed or released). */
  ended(stepId: string): void {
    this.#writers.delete(stepId)
    this.#executors.delete(stepId)
  }

  /** The running commands that may write files from untrusted data, with those sources. */
  get writers(): ReadonlyMap<string, readonly string[]> {
    return this.#writers
  }

  /** Whether a command that executes workspace files is running. */
  get executorRunning(): boolean {
    return this.#executors.size > 0
  }
}
