import { defineValue } from '@plan/json'
import { isRecord, stringAt } from '@plan/shell/common'
import type { SavedStateChanges } from '../types/saved-state-changes.js'

/** The last key of a path. */
function lastKey(path: readonly string[]): string {
  return stringAt(path, path.length - 1)
}

function parentOf(
  state: Record<string, unknown>,
  path: readonly string[],
  create: boolean,
): Record<string, unknown> | undefined {
  let node = state
  for (let index = 0; index < path.length - 1; index += 1) {
    const key = stringAt(path, index)
    const next = Object.hasOwn(node, key) ? node[key] : undefined
    if (isRecord(next)) {
      node = next
      continue
    }
    if (!create) return undefined
    const made: Record<string, unknown> = {}
    defineValue(node, key, made)
    node = made
  }
  return node
}

/**
 * `state` (a JSON object, changed in place) with `changes` applied. Throws when a list the changes
 * write into is missing or shorter than where they write (the changes belong to another state).
 */
export function applySavedStateChanges(
  state: Record<string, unknown>,
  changes: Pick<SavedStateChanges, 'set' | 'delete' | 'append'>,
): Record<string, unknown> {
  for (const path of changes.delete) {
    const parent = parentOf(state, path, false)
    if (parent !== undefined) delete parent[lastKey(path)]
  }
  for (const [path, value] of changes.set) {
    defineValue(parentOf(state, path, true) ?? {}, lastKey(path), value)
  }
  for (const [path, items, at] of changes.append ?? []) {
    const parent = parentOf(state, path, false)
    const key = lastKey(path)
    const list = parent !== undefined && Object.hasOwn(parent, key) ? parent[key] : undefined
    if (!Array.isArray(list) || list.length < at)
      throw new Error(`the saved changes write into ${path.join('.')} at ${at}, past its end`)
    list.length = at
    for (const item of items) list.push(item)
  }
  return state
}
