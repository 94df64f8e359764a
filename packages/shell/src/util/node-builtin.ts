/** What the code reads of `globalThis.process`, which runtimes other than Node.js may lack. */
interface HostProcess {
  readonly getBuiltinModule?: (id: string) => unknown
  readonly versions?: { readonly node?: string }
  readonly cwd?: () => string
}

/** `globalThis.process` where the runtime has one (Node.js, Bun, Deno), else undefined. */
export function hostProcess(): HostProcess | undefined {
  const host: { readonly process?: HostProcess } = globalThis
  return host.process
}

/**
 * A Node.js built-in module when the runtime has one (`process.getBuiltinModule`: Node.js 22.3+,
 * Bun, Deno), else undefined. The main entry reaches Node.js this way only, never through a
 * `node:` import, so that it loads on runtimes without them (edge functions, browsers).
 */
export function nodeBuiltin<T>(name: string): T | undefined {
  const process = hostProcess()
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
  if (hostProcess()?.versions?.node === undefined) return undefined
  try {
    return (await import(name)) as T
  } catch {
    return undefined
  }
}
