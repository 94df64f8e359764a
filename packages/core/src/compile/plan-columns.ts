import { int32At, itemAt, stringAt } from '@plan/shell/common'
import { pollutedPrototype } from '../errors/polluted-prototype.js'
import type { CompiledStep, StepReference } from '../types/compiled-plan.js'
import { type DependentRows, dependentRowsBy } from '../util/dependent-rows.js'
import { sortSmall } from '../util/sort-small.js'
import { unsetSlots } from '../util/unset-slots.js'
import { IdPositions, OneIdPosition } from './id-positions.js'
import type { HashedStep, HashSource } from './plan-hasher.js'
import { NO_DEPENDENCIES, PlanHasher } from './plan-hasher.js'

const NO_NODES = new Int32Array(0)
const ONE_STEP_DEPENDENTS: DependentRows = { starts: new Int32Array(2), targets: NO_NODES }

/**
 * `count` empty strings, each an own element from the start (literals for the usual few): written
 * inside its length only, it never meets an index accessor of a polluted Array/Object.prototype.
 */
function blankIds(count: number): string[] {
  if (count === 1) return ['']
  if (count === 2) return ['', '']
  if (count === 3) return ['', '', '']
  return Array.from({ length: count }, () => '')
}

/** How many of the step objects made one at a time a plan keeps (a power of two). */
const RECENT_STEPS = 64

/** What the columns are made of: one entry per graph node, in plan order. */
export interface PlanColumnsInput {
  readonly ids: readonly string[]
  /** Plan index of each node. */
  readonly rowOf: Int32Array
  /** Tool name of each plan row (not node). */
  readonly tools: readonly (string | undefined)[]
  readonly args: readonly CompiledStep['args'][]
  readonly references: readonly (readonly StepReference[])[]
  /**
   * Node `n` depends on the nodes `dependencyTarget[dependencyStart[n] .. dependencyStart[n + 1])`:
   * explicit dependencies first, then those implied by references.
   */
  readonly dependencyStart: Int32Array
  readonly dependencyTarget: Int32Array
  readonly level: Int32Array
  /** Number of levels (the critical path length). */
  readonly levelCount: number
}

/**
 * An approved plan's steps as columns, as the compiler built them. The hash reads the columns;
 * `CompiledPlan.steps` objects are made from them when first asked for (else never).
 */
export class PlanColumns implements HashSource {
  readonly #input: PlanColumnsInput
  #steps: readonly CompiledStep[] | undefined
  #positions: ReadonlyMap<string, number> | undefined
  #levels: readonly (readonly string[])[] | undefined
  #dependents: DependentRows | undefined
  /** One slot per step up to {@link RECENT_STEPS} (a power of two): a turn's plan has one step. */
  readonly #recent: (CompiledStep | undefined)[]
  #hasher: PlanHasher | undefined

  constructor(input: PlanColumnsInput) {
    this.#input = input
    let room = 1
    while (room < input.ids.length && room < RECENT_STEPS) room *= 2
    this.#recent = unsetSlots(room)
  }

  get size(): number {
    return this.#input.ids.length
  }

  /** Writes `node`'s step as hashed into `step` (see {@link HashSource.fill}). */
  fill(node: number, step: HashedStep): void {
    const { ids, rowOf, tools, args, dependencyStart } = this.#input
    const count = int32At(dependencyStart, node + 1) - int32At(dependencyStart, node)
    step.args = itemAt(args, node)
    // The edges of a node are distinct, so the ids need sorting, not deduplicating.
    step.dependsOn =
      count === 0
        ? NO_DEPENDENCIES
        : sortSmall(dependencyIdsInto(this.#input, node, step.dependsOn as string[]))
    step.id = stringAt(ids, node)
    step.tool = itemAt(tools, int32At(rowOf, node))
  }

  /** The plan's hash (hex SHA-256 of its canonical JSON), computed at the first call. */
  hash(): string {
    return this.hasher().digest()
  }

  /** What computes and keeps {@link hash}, made at the first call. */
  hasher(): PlanHasher {
    this.#hasher ??= new PlanHasher(this)
    return this.#hasher
  }

  /** The step ids by position (the positions of {@link steps}). */
  get ids(): readonly string[] {
    return this.#input.ids
  }

  /** The position of each step id, made when first read: one table for every reader of the plan. */
  get positions(): ReadonlyMap<string, number> {
    if (this.#positions === undefined) {
      const { ids } = this.#input
      // One step (a turn's one call): its id is compared, with no table to fill.
      this.#positions =
        ids.length === 1 ? new OneIdPosition(stringAt(ids, 0)) : new IdPositions(ids)
    }
    return this.#positions
  }

  /** Each step's dependents by position, made once: the guard and the executor only read it. */
  dependents(): DependentRows {
    // One step has no dependents: a turn's one call shares the empty rows.
    if (this.size === 1) return ONE_STEP_DEPENDENTS
    this.#dependents ??= dependentRowsBy(this.size, (node) => this.dependencies(node))
    return this.#dependents
  }

  /** Each level's ids in plan order, frozen, made at first call (a chain has an array per step). */
  levels(): readonly (readonly string[])[] {
    this.#levels ??= Object.freeze(levelIds(this.#input))
    return this.#levels
  }

  tool(node: number): string {
    return itemAt(this.#input.tools, int32At(this.#input.rowOf, node))
  }

  /** Nodes the step at `node` depends on: explicit dependencies, then those of references. */
  dependencies(node: number): Int32Array {
    const { dependencyStart, dependencyTarget } = this.#input
    const start = dependencyStart[node]
    const end = dependencyStart[node + 1]
    // a step without dependencies (every step of a turn) needs no view of its own
    return start === end ? NO_NODES : dependencyTarget.subarray(start, end)
  }

  /**
   * The step at `node`: the plan's own object once {@link steps} were made, else a frozen one
   * made on demand, so a reader of a few steps at a time never makes them all.
   */
  step(node: number): CompiledStep {
    if (this.#steps !== undefined) return itemAt(this.#steps, node)
    // Recent steps by node mod size: a step being authorized, run and completed is made once.
    const slot = node & (this.#recent.length - 1)
    const recent = this.#recent[slot]
    if (recent !== undefined && recent.id === this.#input.ids[node]) return recent
    const dependsOn =
      int32At(this.#input.dependencyStart, node + 1) === int32At(this.#input.dependencyStart, node)
        ? NO_DEPENDENCIES
        : Object.freeze(dependencyIdsInto(this.#input, node))
    const step = stepObject(this.#input, node, dependsOn)
    this.#recent[slot] = step
    return step
  }

  /** The frozen step objects, made at the first call and the same at every later one. */
  steps(): readonly CompiledStep[] {
    this.#steps ??= Object.freeze(buildSteps(this.#input))
    return this.#steps
  }
}

/**
 * The deep-frozen step objects of `input`. Each written element is checked to be its array's own
 * (else this throws): a built-in prototype's index accessor cannot drop or replace a step.
 */
function buildSteps(input: PlanColumnsInput): CompiledStep[] {
  const size = input.ids.length
  const steps: CompiledStep[] = new Array(size)
  // 1 + the first node that depends on a node alone: later such nodes share its frozen list.
  const owner = new Int32Array(size)
  for (let node = 0; node < size; node += 1) {
    steps[node] = stepObject(input, node, dependsOn(input, node, steps, owner))
    if (!Object.hasOwn(steps, node)) throw pollutedPrototype()
  }
  return steps
}

/** The frozen step object of `node`, with its dependency ids `dependsOn`. */
function stepObject(
  input: PlanColumnsInput,
  node: number,
  dependsOn: readonly string[],
): CompiledStep {
  const { ids, rowOf, tools, args, references, level } = input
  const index = int32At(rowOf, node)
  return Object.freeze({
    id: stringAt(ids, node),
    index,
    tool: itemAt(tools, index),
    args: itemAt(args, node),
    dependsOn,
    references: itemAt(references, node),
    level: int32At(level, node),
  })
}

/** `node`'s dependency ids, frozen: explicit ones, then those implied by references. */
function dependsOn(
  input: PlanColumnsInput,
  node: number,
  steps: readonly CompiledStep[],
  owner: Int32Array,
): readonly string[] {
  const { ids, dependencyStart, dependencyTarget } = input
  const from = int32At(dependencyStart, node)
  const end = int32At(dependencyStart, node + 1)
  if (end === from) return NO_DEPENDENCIES
  if (end - from === 1) {
    const target = int32At(dependencyTarget, from)
    const first = int32At(owner, target)
    if (first !== 0) return itemAt(steps, first - 1).dependsOn
    owner[target] = node + 1
    return Object.freeze([stringAt(ids, target)])
  }
  return Object.freeze(dependencyIdsInto(input, node))
}

/**
 * The ids `node` depends on, in edge order, in `into` if it has exactly their count, else in a
 * new array; written only inside its length, so a built-in prototype's accessor sees no write.
 */
function dependencyIdsInto(input: PlanColumnsInput, node: number, into?: string[]): string[] {
  const { ids, dependencyStart, dependencyTarget } = input
  const from = int32At(dependencyStart, node)
  const count = int32At(dependencyStart, node + 1) - from
  const list = into !== undefined && into.length === count ? into : blankIds(count)
  for (let edge = 0; edge < count; edge += 1)
    list[edge] = stringAt(ids, int32At(dependencyTarget, from + edge))
  return list
}

/** The ids of every level of `input`, each list frozen and of its exact size. */
function levelIds(input: PlanColumnsInput): (readonly string[])[] {
  const { ids, level, levelCount } = input
  const sizes = new Int32Array(levelCount)
  for (let node = 0; node < ids.length; node += 1) {
    const group = int32At(level, node)
    sizes[group] = int32At(sizes, group) + 1
  }
  const levels: string[][] = new Array(levelCount)
  for (let group = 0; group < levelCount; group += 1)
    levels[group] = blankIds(int32At(sizes, group))
  const filled = new Int32Array(levelCount)
  for (let node = 0; node < ids.length; node += 1) {
    const group = int32At(level, node)
    itemAt(levels, group)[int32At(filled, group)] = stringAt(ids, node)
    filled[group] = int32At(filled, group) + 1
  }
  return levels.map((list) => Object.freeze(list))
}
