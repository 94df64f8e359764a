/**
 * Returns a copy of a WebAssembly module in which every function larger than 64 KB has the
 * cases of its switches moved into functions of their own, and how many were moved.
 */
export function outlineLargeFunctions(input: Uint8Array): {
  readonly bytes: Uint8Array
  readonly outlined: number
}

/** The size in bytes of each function body the module defines, in order. */
export function functionSizes(input: Uint8Array): number[]

/** How many `br_table` instructions the module's function bodies hold. */
export function branchTableCount(input: Uint8Array): number
