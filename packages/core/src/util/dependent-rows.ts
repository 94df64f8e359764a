import { int32At, itemAt } from '@plan/shell/common'

/** The row of a step without dependents (most steps): shared, as a view per step costs more. */
const NO_ITEMS = new Int32Array(0)

/**
 * Each plan step's dependents by position, as compressed rows: those of the step at position p are
 * `targets[starts[p] .. starts[p + 1])`, in plan order (two typed arrays, no id array per step).
 */
export interface DependentRows {
  readonly starts: Int32Array
  readonly targets: Int32Array
}

/**
 * Rows of items by row, `size` rows, from every `(row, item)` pair `pairs` emits (twice: once to
 * count, once to fill), in O(size + pairs); each row keeps the order its items were emitted in.
 */
export function rowsOf(
  size: number,
  pairs: (emit: (row: number, item: number) => void) => void,
): DependentRows {
  const starts = new Int32Array(size + 1)
  pairs((row) => {
    starts[row + 1] = int32At(starts, row + 1) + 1
  })
  for (let index = 0; index < size; index += 1)
    starts[index + 1] = int32At(starts, index + 1) + int32At(starts, index)
  const count = int32At(starts, size)
  // no pairs (a plan without dependencies): nothing to fill
  if (count === 0) return { starts, targets: NO_ITEMS }
  const targets = new Int32Array(count)
  const filled = starts.slice(0, size)
  pairs((row, item) => {
    targets[int32At(filled, row)] = item
    filled[row] = int32At(filled, row) + 1
  })
  return { starts, targets }
}

/** Positions of the steps that depend on the step at `position`. */
export function dependentsAt(rows: DependentRows, position: number): Int32Array {
  const start = rows.starts[position]
  const end = rows.starts[position + 1]
  return start === end ? NO_ITEMS : rows.targets.subarray(start, end)
}

/** The rows of `size` steps whose dependencies (positions) `dependencies` gives, in O(steps + edges). */
export function dependentRowsBy(
  size: number,
  dependencies: (position: number) => ArrayLike<number>,
): DependentRows {
  return rowsOf(size, (emit) => {
    for (let position = 0; position < size; position += 1) {
      const targets = dependencies(position)
      for (let edge = 0; edge < targets.length; edge += 1) emit(itemAt(targets, edge), position)
    }
  })
}
