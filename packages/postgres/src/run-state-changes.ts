/**
 * A change of a saved state: paths deleted, values set (by path), and items appended to arrays
 * that only grew (a log of outputs), applied in that order. An append that names a position
 * (as a guard's `changesSince` does) holds the items from there on.
 */
export interface StateChanges {
  readonly set: readonly (readonly [readonly string[], unknown])[]
  readonly delete: readonly (readonly string[])[]
  readonly append?: readonly (
    | readonly [readonly string[], readonly unknown[]]
    | readonly [readonly string[], readonly unknown[], number]
  )[]
}

type Collected = { set: [string[], unknown][]; delete: string[][]; append: [string[], unknown[]][] }

/** The items `after` adds to `before`, when it is `before` with items appended. */
function appended(before: unknown, after: unknown): unknown[] | undefined {
  if (!Array.isArray(before) || !Array.isArray(after) || after.length <= before.length) return
  if (before.length === 0) return
  const prefix = JSON.stringify(after.slice(0, before.length))
  return prefix === JSON.stringify(before) ? after.slice(before.length) : undefined
}

/** How deep the diff goes into nested objects (`state.guard.status.<step>` is at depth 4). */
const MAX_DEPTH = 5

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function collect(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  path: readonly string[],
  changes: Collected,
): void {
  for (const key of Object.keys(before)) {
    if (!Object.hasOwn(after, key)) changes.delete.push([...path, key])
  }
  for (const [key, value] of Object.entries(after)) {
    const old = Object.hasOwn(before, key) ? before[key] : undefined
    if (old === undefined) {
      changes.set.push([[...path, key], value])
    } else if (isRecord(old) && isRecord(value) && path.length + 1 < MAX_DEPTH) {
      collect(old, value, [...path, key], changes)
    } else {
      const added = appended(old, value)
      if (added !== undefined) changes.append.push([[...path, key], added])
      else if (JSON.stringify(old) !== JSON.stringify(value))
        changes.set.push([[...path, key], value])
    }
  }
}

/**
 * What changed from `before` to `after`, two JSON objects (as `JSON.parse` makes them): nested
 * objects are compared key by key, anything else as a whole. Applying it to `before` with
 * {@link applyChanges} gives `after`.
 */
export function diffStates(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): StateChanges {
  const changes: Collected = { set: [], delete: [], append: [] }
  collect(before, after, [], changes)
  return changes.append.length === 0 ? { set: changes.set, delete: changes.delete } : changes
}

/** `state` (a JSON object, changed in place) with `changes` applied. */
export function applyChanges(
  state: Record<string, unknown>,
  changes: StateChanges,
): Record<string, unknown> {
  for (const path of changes.delete) {
    const parent = parentOf(state, path)
    const key = path.at(-1) as string
    if (parent !== undefined) delete parent[key]
  }
  for (const [path, value] of changes.set) {
    const parent = parentOf(state, path, true) as Record<string, unknown>
    // defineProperty, not assignment: a key named __proto__ stays an own key, as in JSON.parse.
    Object.defineProperty(parent, path.at(-1) as string, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    })
  }
  for (const [path, items, at] of changes.append ?? []) {
    const parent = parentOf(state, path)
    const key = path.at(-1) as string
    const list = parent !== undefined && Object.hasOwn(parent, key) ? parent[key] : undefined
    if (!Array.isArray(list) || (at !== undefined && list.length < at))
      throw new Error(`the saved changes append to ${path.join('.')}, no list that long`)
    if (at !== undefined) list.length = at
    for (const item of items) list.push(item)
  }
  return state
}

function parentOf(
  state: Record<string, unknown>,
  path: readonly string[],
  create = false,
): Record<string, unknown> | undefined {
  let node: Record<string, unknown> = state
  for (const key of path.slice(0, -1)) {
    const next = Object.hasOwn(node, key) ? node[key] : undefined
    if (isRecord(next)) {
      node = next
      continue
    }
    if (!create) return undefined
    const made: Record<string, unknown> = {}
    Object.defineProperty(node, key, {
      value: made,
      writable: true,
      enumerable: true,
      configurable: true,
    })
    node = made
  }
  return node
}
