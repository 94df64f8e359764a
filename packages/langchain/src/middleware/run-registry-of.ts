import type { RunRegistry } from './run-registry.js'

const registries = new WeakMap<object, RunRegistry>()

/** Records the runs a middleware instance serves, for {@link runRegistryOf}. */
export function recordRunRegistry(middleware: object, registry: RunRegistry): void {
  registries.set(middleware, registry)
}

/** The runs a `planGuardMiddleware` instance serves (a seam for tests; not exported). */
export function runRegistryOf(middleware: object): RunRegistry | undefined {
  return registries.get(middleware)
}
