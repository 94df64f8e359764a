import { int32At, itemAt, numberAt } from '@plan/shell/common'
import { rowsOf } from '../util/dependent-rows.js'
/** The result of {@link analyzeGraph}. */
export interface GraphAnalysis {
  /** Node indices in topological order; ties (same level) keep index order. Empty when cyclic. */
  readonly order: number[]
  /** Level of each node (longest chain of dependencies before it); -1 for nodes on or after a cycle. */
  readonly level: Int32Array
  /** Number of nodes on the longest chain. */
  readonly criticalPathLength: number
  /** One cycle per strongly connected component, as node indices with the first repeated last. */
  readonly cycles: number[][]
}

/**
 * Orders a dependency graph and finds its cycles in time linear in nodes + edges.
 * `dependencies[i]` lists the nodes node `i` depends on (no duplicates, no self-loops).
 */
export function analyzeGraph(dependencies: readonly (readonly number[])[]): GraphAnalysis {
  const dependencyStart = new Int32Array(dependencies.length + 1)
  const dependencyTarget: number[] = []
  for (let node = 0; node < dependencies.length; node += 1) {
    const deps = itemAt(dependencies, node)
    for (let edge = 0; edge < deps.length; edge += 1) dependencyTarget.push(itemAt(deps, edge))
    dependencyStart[node + 1] = dependencyTarget.length
  }
  return analyzeDependencies(dependencyStart, Int32Array.from(dependencyTarget))
}

/**
 * {@link analyzeGraph} over compressed dependencies (`dependencyStart.length - 1` nodes): node `i`
 * depends on `dependencyTarget[dependencyStart[i] .. dependencyStart[i + 1])`.
 */
export function analyzeDependencies(
  dependencyStart: Int32Array,
  dependencyTarget: Int32Array,
): GraphAnalysis {
  return (
    forwardDependencies(dependencyStart, dependencyTarget) ??
    orderDependencies(dependencyStart, dependencyTarget)
  )
}

/**
 * {@link orderDependencies} in one pass when every edge points to an earlier node (acyclic by
 * construction, each level known from earlier ones); undefined at the first edge that does not.
 */
export function forwardDependencies(
  dependencyStart: Int32Array,
  dependencyTarget: Int32Array,
): GraphAnalysis | undefined {
  const count = dependencyStart.length - 1
  const level = new Int32Array(count)
  let maxLevel = -1
  for (let node = 0; node < count; node += 1) {
    const end = int32At(dependencyStart, node + 1)
    let nodeLevel = 0
    for (let edge = int32At(dependencyStart, node); edge < end; edge += 1) {
      const dep = int32At(dependencyTarget, edge)
      if (dep >= node) return undefined
      const above = int32At(level, dep) + 1
      if (above > nodeLevel) nodeLevel = above
    }
    level[node] = nodeLevel
    if (nodeLevel > maxLevel) maxLevel = nodeLevel
  }
  return acyclic(level, maxLevel + 1)
}

/** {@link analyzeDependencies} for any graph: Kahn's algorithm, then Tarjan's on what is left. */
export function orderDependencies(
  dependencyStart: Int32Array,
  dependencyTarget: Int32Array,
): GraphAnalysis {
  const count = dependencyStart.length - 1
  const pending = new Int32Array(count)
  for (let node = 0; node < count; node += 1)
    pending[node] = int32At(dependencyStart, node + 1) - int32At(dependencyStart, node)
  // Dependents in compressed form: dependentsOf(i) = targets[start[i] .. start[i + 1]).
  const { starts: start, targets } = rowsOf(count, (emit) => {
    for (let node = 0; node < count; node += 1) {
      const end = int32At(dependencyStart, node + 1)
      for (let edge = int32At(dependencyStart, node); edge < end; edge += 1)
        emit(int32At(dependencyTarget, edge), node)
    }
  })

  // Kahn's algorithm with an index into the queue instead of shifting it.
  const level = new Int32Array(count).fill(-1)
  const queue = new Int32Array(count)
  let tail = 0
  for (let node = 0; node < count; node += 1) {
    if (pending[node] === 0) {
      queue[tail] = node
      tail += 1
      level[node] = 0
    }
  }
  let maxLevel = -1
  for (let head = 0; head < tail; head += 1) {
    const node = int32At(queue, head)
    const nodeLevel = int32At(level, node)
    if (nodeLevel > maxLevel) maxLevel = nodeLevel
    const end = int32At(start, node + 1)
    for (let edge = int32At(start, node); edge < end; edge += 1) {
      const next = int32At(targets, edge)
      if (int32At(level, next) < nodeLevel + 1) level[next] = nodeLevel + 1
      const left = int32At(pending, next) - 1
      pending[next] = left
      if (left === 0) {
        queue[tail] = next
        tail += 1
      }
    }
  }

  if (tail < count) {
    for (let node = 0; node < count; node += 1) if (int32At(pending, node) > 0) level[node] = -1
    return {
      order: [],
      level,
      criticalPathLength: 0,
      cycles: findCycles(dependencyStart, dependencyTarget, pending),
    }
  }

  return acyclic(level, maxLevel + 1)
}

/** The analysis of an acyclic graph whose nodes are on `count` levels. */
function acyclic(level: Int32Array, count: number): GraphAnalysis {
  return { order: orderByLevel(level, count), level, criticalPathLength: count, cycles: [] }
}

/**
 * The topological order the levels make, nodes of one level in index order: a counting sort
 * over `count` levels (no array per level: a chain has as many levels as nodes).
 */
function orderByLevel(level: Int32Array, count: number): number[] {
  const order: number[] = new Array(level.length)
  // One level or none (e.g. a turn's batch of calls without dependencies): index order.
  if (count <= 1) {
    for (let node = 0; node < level.length; node += 1) order[node] = node
    return order
  }
  const next = new Int32Array(count)
  for (let node = 0; node < level.length; node += 1) {
    const group = int32At(level, node) + 1
    if (group < count) next[group] = int32At(next, group) + 1
  }
  for (let group = 1; group < count; group += 1)
    next[group] = int32At(next, group) + int32At(next, group - 1)
  for (let node = 0; node < level.length; node += 1) {
    const group = int32At(level, node)
    const slot = int32At(next, group)
    order[slot] = node
    next[group] = slot + 1
  }
  return order
}

/**
 * One witness cycle per non-trivial strongly connected component among the nodes Kahn's
 * algorithm could not order (Tarjan's algorithm, iterative so deep graphs cannot overflow the stack).
 */
function findCycles(
  dependencyStart: Int32Array,
  dependencyTarget: Int32Array,
  pending: Int32Array,
): number[][] {
  const count = dependencyStart.length - 1
  const index = new Int32Array(count).fill(-1)
  const low = new Int32Array(count)
  const onStack = new Uint8Array(count)
  const stack: number[] = []
  const component = new Int32Array(count).fill(-1)
  const components: number[][] = []
  let counter = 0
  const callNode: number[] = []
  const callEdge: number[] = []

  for (let root = 0; root < count; root += 1) {
    if (int32At(pending, root) === 0 || index[root] !== -1) continue
    callNode.push(root)
    callEdge.push(0)
    index[root] = counter
    low[root] = counter
    counter += 1
    stack.push(root)
    onStack[root] = 1
    while (callNode.length > 0) {
      const top = callNode.length - 1
      const node = numberAt(callNode, top)
      const first = int32At(dependencyStart, node)
      const edge = numberAt(callEdge, top)
      if (first + edge < int32At(dependencyStart, node + 1)) {
        callEdge[top] = edge + 1
        const next = int32At(dependencyTarget, first + edge)
        if (int32At(pending, next) === 0) continue
        if (index[next] === -1) {
          index[next] = counter
          low[next] = counter
          counter += 1
          stack.push(next)
          onStack[next] = 1
          callNode.push(next)
          callEdge.push(0)
        } else if (onStack[next] === 1 && int32At(index, next) < int32At(low, node)) {
          low[node] = int32At(index, next)
        }
        continue
      }
      callNode.pop()
      callEdge.pop()
      const parent = callNode[callNode.length - 1]
      if (parent !== undefined && int32At(low, node) < int32At(low, parent))
        low[parent] = int32At(low, node)
      if (low[node] === index[node]) {
        const members: number[] = []
        let member: number
        do {
          member = stack.pop() ?? node
          onStack[member] = 0
          component[member] = components.length
          members.push(member)
        } while (member !== node)
        components.push(members)
      }
    }
  }

  const cycles: number[][] = []
  for (let id = 0; id < components.length; id += 1) {
    const members = itemAt(components, id)
    if (members.length < 2) continue
    let first = itemAt(members, 0)
    for (const member of members) if (member < first) first = member
    cycles.push(witness(dependencyStart, dependencyTarget, component, id, first))
  }
  cycles.sort((left, right) => numberAt(left, 0) - numberAt(right, 0))
  return cycles
}

/** Shortest cycle through `start` inside one component, by breadth-first search. */
function witness(
  dependencyStart: Int32Array,
  dependencyTarget: Int32Array,
  component: Int32Array,
  id: number,
  start: number,
): number[] {
  const previous = new Map<number, number>()
  const queue = [start]
  for (let head = 0; head < queue.length; head += 1) {
    const node = numberAt(queue, head)
    const end = int32At(dependencyStart, node + 1)
    for (let edge = int32At(dependencyStart, node); edge < end; edge += 1) {
      const next = int32At(dependencyTarget, edge)
      if (component[next] !== id) continue
      if (next === start) {
        const path = [start]
        for (
          let step: number | undefined = node;
          step !== undefined && step !== start;
          step = previous.get(step)
        )
          path.push(step)
        path.reverse()
        return [start, ...path.slice(0, -1), start]
      }
      if (!previous.has(next)) {
        previous.set(next, node)
        queue.push(next)
      }
    }
  }
  return [start, start]
}
