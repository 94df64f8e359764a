/**
 * What changed in a saved run state since the revision `since`, as paths into its JSON: paths
 * deleted, values set, then items written into lists that only grow, in that order. Every
 * operation says what the value at its path is afterwards, so applying the changes to a state
 * that is already newer than `since` (a state read later) gives the same result.
 */
export interface SavedStateChanges {
  /** The revision these changes apply to. */
  readonly since: number
  readonly set: readonly (readonly [readonly string[], unknown])[]
  readonly delete: readonly (readonly string[])[]
  /** A list that only grows, the items it holds from position `at` on, and `at`. */
  readonly append?: readonly (readonly [readonly string[], readonly unknown[], number])[]
}
