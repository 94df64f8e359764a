import { int32At, itemAt, numberAt } from '@plan/shell/common'
import type { ToolPolicy } from '../schema/policy-schema.js'
import type { CompiledStep, StepReference } from '../types/compiled-plan.js'
import type { StepTable } from './step-table.js'

const NONE: readonly StepReference[] = Object.freeze([])
// A node's edges are checked for a duplicate by scanning them up to this many, by stamps beyond.
const SCAN_EDGES = 8
const NO_ARGS: CompiledStep['args'] = Object.freeze({})

/** A new array of `items[from, from + count)`; literals for the usual one or two keep it exact-size. */
function head<T>(items: readonly T[], count: number, from = 0): T[] {
  if (count === 1) return [itemAt(items, from)]
  if (count === 2) return [itemAt(items, from), itemAt(items, from + 1)]
  return items.slice(from, from + count)
}

// The loops below are functions of their own: a long loop in the constructor would be compiled
// while it runs, before the code after it had run, and that code would bail out on every plan.

function countNodes(inGraph: Uint8Array, size: number): number {
  let nodes = 0
  for (let index = 0; index < size; index += 1) nodes += itemAt(inGraph, index)
  return nodes
}

/** Numbers the steps in the graph in plan order (-1 for the others), both ways. */
function numberNodes(inGraph: Uint8Array, nodeOf: Int32Array, rowOf: Int32Array): void {
  let node = 0
  for (let index = 0; index < nodeOf.length; index += 1) {
    if (inGraph[index] === 1) {
      nodeOf[index] = node
      rowOf[node] = index
      node += 1
    } else nodeOf[index] = -1
  }
}

const NO_TARGETS: Int32Array = new Int32Array(0)

/** A copy of `column` with room for twice as many, and for at least `least`. */
function grown(column: Int32Array, least: number): Int32Array {
  const wider = new Int32Array(Math.max(column.length * 2, least))
  wider.set(column)
  return wider
}

/**
 * The graph of a plan's steps, one column per field and one entry per graph node (a step with a
 * well-formed, unique id) in plan order; dependencies and references in compressed form.
 */
export class PlanLinks {
  /** Graph node of each step (by plan index), -1 for steps outside the graph. */
  readonly nodeOf: Int32Array
  /** Plan index of each node. */
  readonly rowOf: Int32Array
  readonly ids: string[]
  readonly tools: (ToolPolicy | undefined)[]
  readonly args: CompiledStep['args'][]
  readonly references: (readonly StepReference[])[]
  readonly dependencyStart: Int32Array
  readonly referenceStart: Int32Array
  // Edges and reference targets in typed columns with room to spare (made at the first entry,
  // for about as many as the plan has), `#edges` and `#referenceCount` of them used.
  #dependencyTarget: Int32Array = NO_TARGETS
  #edges = 0
  readonly #edgeRoom: number
  #referenceTarget: Int32Array = NO_TARGETS
  #referenceCount = 0
  #stamp: Int32Array | undefined

  constructor(table: StepTable) {
    const nodes = countNodes(table.inGraph, table.size)
    this.nodeOf = new Int32Array(table.size)
    this.rowOf = new Int32Array(nodes)
    numberNodes(table.inGraph, this.nodeOf, this.rowOf)
    // Exact size up front (pushed arrays keep spare room). With every step in the graph node n is
    // row n: ids and arguments fill the table's own columns (a row is read before its node closes).
    const rows = nodes === table.size
    this.ids = rows ? (table.ids as string[]) : new Array(nodes)
    this.tools = new Array(nodes)
    this.args = rows ? (table.args as CompiledStep['args'][]) : new Array(nodes)
    this.references = new Array(nodes)
    this.dependencyStart = new Int32Array(nodes + 1)
    this.referenceStart = new Int32Array(nodes + 1)
    this.#edgeRoom = table.dependencyCount + (nodes >>> 1) + 8
  }

  /**
   * Node `n` depends on `dependencyTarget[dependencyStart[n] .. dependencyStart[n + 1])`; the
   * column may be longer than its {@link edgeCount} entries.
   */
  get dependencyTarget(): Int32Array {
    return this.#dependencyTarget
  }

  get edgeCount(): number {
    return this.#edges
  }

  /**
   * Node `n`'s references read `referenceTarget[referenceStart[n] .. referenceStart[n + 1])`;
   * the column may be longer than its {@link referenceCount} entries.
   */
  get referenceTarget(): Int32Array {
    return this.#referenceTarget
  }

  get referenceCount(): number {
    return this.#referenceCount
  }

  /** Number of graph nodes. */
  get size(): number {
    return this.rowOf.length
  }

  /** Adds an edge `node` (being linked) → `dependency` once: explicit ones first, then implied. */
  addDependency(node: number, dependency: number): void {
    if (dependency < 0 || this.#linked(node, dependency)) return
    const edge = this.#edges
    if (edge === this.#dependencyTarget.length)
      this.#dependencyTarget = grown(this.#dependencyTarget, this.#edgeRoom)
    this.#dependencyTarget[edge] = dependency
    this.#edges = edge + 1
  }

  /** Whether `node` has an edge to `dependency`: scanned, or past {@link SCAN_EDGES} stamped. */
  #linked(node: number, dependency: number): boolean {
    const end = this.#edges
    // Nodes are linked and closed in order: this node's edges start where the last one's ended.
    const count = end - int32At(this.dependencyStart, node)
    const targets = this.#dependencyTarget
    if (count < SCAN_EDGES) {
      for (let edge = end - count; edge < end; edge += 1)
        if (targets[edge] === dependency) return true
      if (count < SCAN_EDGES - 1) return false
      // The edge about to be added is the last one scanned for: stamp them all from here on.
      this.#stamp ??= new Int32Array(this.size)
      for (let edge = end - count; edge < end; edge += 1)
        this.#stamp[int32At(targets, edge)] = node + 1
      this.#stamp[dependency] = node + 1
      return false
    }
    this.#stamp ??= new Int32Array(this.size)
    const stamp = this.#stamp
    if (stamp[dependency] === node + 1) return true
    stamp[dependency] = node + 1
    return false
  }

  /** Adds `node`'s references `references[from..]`; `targets[i]` is the plan index of each. */
  addReferences(
    node: number,
    references: readonly StepReference[],
    targets: readonly number[],
    from = 0,
  ) {
    const end = references.length
    this.referenceStart[node] = this.#referenceCount
    for (let position = from; position < end; position += 1) {
      const target = int32At(this.nodeOf, numberAt(targets, position))
      const slot = this.#referenceCount
      if (slot === this.#referenceTarget.length)
        this.#referenceTarget = grown(this.#referenceTarget, (this.size >>> 2) + 8)
      this.#referenceTarget[slot] = target
      this.#referenceCount = slot + 1
      this.addDependency(node, target)
    }
    this.referenceStart[node + 1] = this.#referenceCount
    this.references[node] = end === from ? NONE : Object.freeze(head(references, end - from, from))
  }

  /** Closes `node`, whose dependencies and references were added. */
  close(node: number, id: string, tool: ToolPolicy | undefined, args?: CompiledStep['args']) {
    this.dependencyStart[node + 1] = this.#edges
    this.ids[node] = id
    this.tools[node] = tool
    this.args[node] = args ?? NO_ARGS
  }
}
