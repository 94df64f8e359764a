/** What a run has combined so far, for the tainted-run rules. */
export interface TaintState {
  /** Untrusted output (or an untrusted tool's error) has entered the model's context. */
  readonly untrusted: boolean
  /** The run has read a `sensitive` path. */
  readonly sensitive: boolean
  /** The run has written, run a command or reached a URL. */
  readonly acted: boolean
  /** Where the untrusted output came from (`file:README.md`, `url:docs.example.com`), if known. */
  readonly sources?: readonly string[]
}
