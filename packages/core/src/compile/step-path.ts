import type { Path } from './argument-walk.js'

/** The JSON path of a step (and of a part of it), built only for an issue. */
export function stepPath(base: Path, index: number, ...rest: (string | number)[]): Path {
  return [...base, index, ...rest]
}

/** A value for a message, in quotes and cut to `limit` characters. */
export function quote(value: string, limit = 60): string {
  return JSON.stringify(value.length > limit ? `${value.slice(0, limit)}…` : value)
}
