/**
 * Rewrites each untagged template literal without substitutions as a "…" string wherever the
 * two read as the same string; the code keeps its length. Throws when the code does not parse.
 */
export function quoteTemplateStrings(fileName: string, code: string): string

/** A rolldown plugin that applies `quoteTemplateStrings` to every chunk once it is minified. */
export function quoteTemplateStringsPlugin(): {
  readonly name: string
  generateBundle(options: unknown, bundle: Record<string, unknown>): void
}
