import type { CliIo } from './io.js'
import type { CliWarning } from './missing-roots.js'

/** Prints warnings on standard error, one line each. */
export function writeWarnings(io: CliIo, warnings: readonly CliWarning[]): void {
  for (const warning of warnings) io.stderr.write(`plan: warning: ${warning.message}\n`)
}
