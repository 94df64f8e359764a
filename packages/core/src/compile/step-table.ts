/**
 * A plan's steps as read, one column per field and one row per step in plan order: no object
 * per step, so a large plan leaves little for the garbage collector.
 */
export class StepTable {
  // Exact size up front: arrays grown by push are copied as they grow, and keep spare room.
  readonly ids: (string | undefined)[]
  readonly tools: (string | undefined)[]
  readonly args: unknown[]
  /**
   * The ids in every step's `depends_on` (or `dependsOn`), strings only, end to end: row `r`'s
   * are `dependencyIds[dependencyStart[r] .. dependencyStart[r + 1])`. Room for a few more
   * than one per step up front; {@link dependencyCount} of them are used.
   */
  readonly dependencyIds: string[]
  readonly dependencyStart: Int32Array
  /** 1 where the dependencies were spelled `dependsOn`. */
  readonly camel: Uint8Array
  /** 1 for a step in the graph: a well-formed id, seen for the first time. */
  readonly inGraph: Uint8Array
  #rows = 0
  #dependencies = 0

  constructor(size: number) {
    this.ids = new Array(size)
    this.tools = new Array(size)
    this.args = new Array(size)
    this.dependencyIds = new Array(size + (size >>> 2))
    this.dependencyStart = new Int32Array(size + 1)
    this.camel = new Uint8Array(size)
    this.inGraph = new Uint8Array(size)
  }

  get size(): number {
    return this.#rows
  }

  /** Number of dependency ids read. */
  get dependencyCount(): number {
    return this.#dependencies
  }

  /** Appends a dependency id to the row being read (the next one {@link add} closes). */
  addDependency(id: string): void {
    this.dependencyIds[this.#dependencies] = id
    this.#dependencies += 1
  }

  /** Closes the next row, with the dependencies added since the previous one. */
  add(
    id: string | undefined,
    tool: string | undefined,
    args: unknown,
    camel: boolean,
    inGraph: boolean,
  ): void {
    const row = this.#rows
    this.#rows = row + 1
    this.ids[row] = id
    this.tools[row] = tool
    this.args[row] = args
    this.dependencyStart[row + 1] = this.#dependencies
    if (camel) this.camel[row] = 1
    if (inGraph) this.inGraph[row] = 1
  }

  /** The key the step's dependencies were written under, for an issue's path. */
  dependenciesKey(row: number): 'depends_on' | 'dependsOn' {
    return this.camel[row] === 1 ? 'dependsOn' : 'depends_on'
  }
}
