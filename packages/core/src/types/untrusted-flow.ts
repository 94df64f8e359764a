/** The trust label of a finished step's output. */
export type TrustLabel = 'trusted' | 'untrusted'

/** The tracker's state as JSON, kept in the guard's snapshot. */
export interface UntrustedFlowState {
  /** Label of each finished step's output. */
  readonly labels: Readonly<Record<string, TrustLabel>>
  /** How many untrusted outputs existed when each step's plan was approved. */
  readonly seen: Readonly<Record<string, number>>
  readonly text: UntrustedTextIndexState
  /** The run has read a sensitive path (`trust.tainted`, rule of two). */
  readonly sensitive?: boolean
  /** The run has written, run a command or reached a URL (rule of two). */
  readonly acted?: boolean
  /** Where each untrusted step output came from (`file:README.md`, `url:docs.example.com`). */
  readonly sources?: Readonly<Record<string, readonly string[]>>
  /** The sources of every untrusted output that reached the model's context. */
  readonly context?: readonly string[]
  /** How many refusals of this run were put to a human (`onRefuse: 'ask'`). */
  readonly questions?: number
  /** Workspace files written with untrusted data (paths relative to a root), with its sources. */
  readonly files?: Readonly<Record<string, readonly string[]>>
}

/** The state of an index as JSON: enough to rebuild it. */
export interface UntrustedTextIndexState {
  /** One entry per recorded output: its step and its normalised texts (only those indexed). */
  readonly outputs: readonly { readonly stepId: string; readonly texts: readonly string[] }[]
  /** Ordinal of the first output that could not be indexed completely, or null. */
  readonly saturatedAt: number | null
}
