import type { PlanIssue } from '@plan/core'

/** Where the command reads and writes; `process` in the binary, buffers in tests. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown; isTTY?: boolean }
  readonly stderr: { write(text: string): unknown }
  /** Reads all of standard input (for `-`). */
  readonly readStdin: () => Promise<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
}

/** Exit codes: approved, rejected, unusable input. */
export const EXIT_APPROVED = 0
export const EXIT_REJECTED = 1
export const EXIT_USAGE = 2

/** An error whose message is shown to the user as is, with exit code 2. */
export class UsageError extends Error {
  /** The problems behind it, when there are any (an invalid policy lists them). */
  readonly issues: readonly PlanIssue[]

  constructor(message: string, issues: readonly PlanIssue[] = []) {
    super(message)
    this.name = 'UsageError'
    this.issues = issues
  }
}
