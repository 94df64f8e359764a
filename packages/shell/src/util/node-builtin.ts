/**
 * A Node.js built-in module when the runtime has one (`process.getBuiltinModule`: Node.js 22.3+,
 * Bun, Deno), else undefined. The main entry reaches Node.js this way only, never through a
 * `node:` import, so that it loads on runtimes without them (edge functions, browsers).
 */
export function nodeBuiltin<T>(name: string): T | undefined {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
    .process
  return typeof process?.getBuiltinModule === 'function'
    ? (process.getBuiltinModule(name) as T | undefined)
    : undefined
}

/**
 * {@link nodeBuiltin}, also on Node.js versions without `process.getBuiltinModule` (through a
 * dynamic import whose name a bundler cannot follow); undefined off Node.js.
 */
export async function loadNodeBuiltin<T>(name: string): Promise<T | undefined> {
  const found = nodeBuiltin<T>(name)
  if (found !== undefined) return found
  const process = (globalThis as { process?: { versions?: { node?: string } } }).process
  if (process?.versions?.node === undefined) return undefined
  try {
    return (await import(name)) as T
  } catch {
    return undefined
  }
}
