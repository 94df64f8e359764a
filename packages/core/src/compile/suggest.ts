import { numberAt } from '@plan/shell/common'

/** Levenshtein distance, bounded: returns `limit + 1` as soon as the distance exceeds `limit`. */
function distance(left: string, right: string, limit: number): number {
  if (Math.abs(left.length - right.length) > limit) return limit + 1
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index)
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row]
    let best = row
    for (let column = 1; column <= right.length; column += 1) {
      const cost = left[row - 1] === right[column - 1] ? 0 : 1
      const value = Math.min(
        numberAt(previous, column) + 1,
        numberAt(current, column - 1) + 1,
        numberAt(previous, column - 1) + cost,
      )
      current.push(value)
      if (value < best) best = value
    }
    if (best > limit) return limit + 1
    previous = current
  }
  return numberAt(previous, right.length)
}

function fold(value: string): string {
  return value
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\-.]+/g, '_')
}

/** The closest known name to `value`, for "did you mean" hints; undefined when nothing is close. */
export function suggest(value: string, known: Iterable<string>): string | undefined {
  if (value.length > 256) return undefined
  const folded = fold(value).trim()
  let best: string | undefined
  let bestDistance = 3
  for (const name of known) {
    if (fold(name) === folded) return name
    const found = distance(folded, fold(name), 2)
    if (found < bestDistance) {
      best = name
      bestDistance = found
    }
  }
  return best
}
