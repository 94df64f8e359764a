import { PlanError } from '@plan/shell/common'

/**
 * Thrown when an element written to an array of our own did not become its own: an accessor on
 * an index of Array.prototype or Object.prototype took the write. What was being built (a plan's
 * steps, its hash) cannot be trusted to be the plan's, so none is given.
 */
export function pollutedPrototype(): PlanError {
  return new PlanError(
    "Array.prototype or Object.prototype has an accessor on an array index: a compiled plan's steps and hash cannot be built faithfully in this process.",
    {
      issues: [
        {
          code: 'internal_error',
          message: 'An array index accessor on a built-in prototype took a write.',
          path: [],
          hint: 'Something in this process polluted a prototype (look for writes of numeric keys to Object.prototype or Array.prototype); remove it and restart.',
        },
      ],
    },
  )
}
