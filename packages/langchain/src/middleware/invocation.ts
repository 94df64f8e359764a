/**
 * What tells one agent invocation from another, as a hook sees it: LangGraph gives each
 * `invoke` or `stream` its own stream writer (`runtime.writer`), shared by every step of that
 * invocation and of graphs it runs inside it. `undefined` when the runtime carries none.
 */
export function invocationOf(runtime: unknown): object | undefined {
  if (typeof runtime !== 'object' || runtime === null) return undefined
  const { writer } = runtime as { readonly writer?: unknown }
  return typeof writer === 'function' ? writer : undefined
}
