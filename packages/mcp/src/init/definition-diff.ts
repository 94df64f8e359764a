/**
 * The lines of `before` and `after` as a unified listing: kept lines start with two blanks,
 * removed ones with `- ` (before the lines added in their place), added ones with `+ ` (longest common subsequence; definitions are
 * small, so its quadratic table is cheap).
 */
export function lineDiff(before: string, after: string): string[] {
  const left = before === '' ? [] : before.split('\n')
  const right = after === '' ? [] : after.split('\n')
  const common: number[][] = Array.from({ length: left.length + 1 }, () =>
    new Array<number>(right.length + 1).fill(0),
  )
  for (let row = left.length - 1; row >= 0; row -= 1)
    for (let column = right.length - 1; column >= 0; column -= 1)
      (common[row] as number[])[column] =
        left[row] === right[column]
          ? ((common[row + 1] as number[])[column + 1] as number) + 1
          : Math.max(
              (common[row + 1] as number[])[column] as number,
              (common[row] as number[])[column + 1] as number,
            )
  const lines: string[] = []
  let row = 0
  let column = 0
  while (row < left.length || column < right.length) {
    if (row < left.length && column < right.length && left[row] === right[column]) {
      lines.push(`  ${left[row]}`)
      row += 1
      column += 1
    } else if (
      row < left.length &&
      (column === right.length ||
        ((common[row + 1] as number[])[column] as number) >=
          ((common[row] as number[])[column + 1] as number))
    ) {
      lines.push(`- ${left[row]}`)
      row += 1
    } else {
      lines.push(`+ ${right[column]}`)
      column += 1
    }
  }
  return lines
}
