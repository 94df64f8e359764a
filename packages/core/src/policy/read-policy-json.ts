import type { JsonValue } from '../types/json-value.js'
import { copyJson } from '../util/json-copy.js'

/** Most values (objects, arrays, scalars) a policy may hold. */
const MAX_POLICY_NODES = 200_000

/** The number of values in a JSON value, counting stops past `limit`. */
function countNodes(value: JsonValue, limit: number): number {
  let count = 0
  const pending: JsonValue[] = [value]
  while (pending.length > 0 && count <= limit) {
    const next = pending.pop()
    if (next === undefined) break
    count += 1
    if (typeof next === 'object' && next !== null)
      for (const child of Object.values(next)) pending.push(child)
  }
  return count
}

/**
 * Reads a policy once into plain JSON of bounded size, so no getter or Proxy runs twice and
 * nothing huge reaches the schema. Throws a `TypeError` saying why the input is not usable.
 */
export function readPolicyJson(input: unknown): JsonValue {
  const copied = copyJson(input)
  if (!copied.ok) throw new TypeError(`it is not plain JSON (${copied.reason})`)
  if (countNodes(copied.value, MAX_POLICY_NODES) > MAX_POLICY_NODES)
    throw new TypeError(`it has more than ${MAX_POLICY_NODES} values`)
  return copied.value
}
