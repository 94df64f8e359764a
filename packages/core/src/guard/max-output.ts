/** Largest step output the guard keeps for references (the executor's default too), as JSON text. */
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024
