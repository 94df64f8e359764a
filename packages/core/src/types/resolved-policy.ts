import type { PathScope } from '@plan/shell/common'
import type { Policy, ToolPolicy } from '../schema/policy-schema.js'

/** A validated policy with absolute roots and lookup maps; what the compiler works from. */
export interface ResolvedPolicy {
  readonly policy: Policy
  readonly scope: PathScope
  readonly tools: ReadonlyMap<string, ToolPolicy>
}

/** Options for `resolvePolicy`. */
export interface ResolvePolicyOptions {
  /** Folder that relative workspace roots resolve against. Defaults to the current folder. */
  readonly baseDir?: string
}
