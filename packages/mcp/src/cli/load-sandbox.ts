import { PlanError, type ResolvedPolicy } from '@plan/core'
import type { SpawnServer } from '../proxy/spawn-server.js'

/** The part of `@plan/sandbox` the proxy uses. */
interface SandboxModule {
  createSandbox(policy: ResolvedPolicy): {
    spawn: SpawnServer
  }
}

function sandboxError(message: string, cause?: unknown): PlanError {
  return new PlanError(message, {
    issues: [
      {
        code: 'invalid_arguments',
        message,
        path: ['--sandbox'],
        hint: 'Install @plan/sandbox next to @plan/mcp, or run without --sandbox.',
      },
    ],
    ...(cause === undefined ? {} : { cause }),
  })
}

/**
 * The spawner of `@plan/sandbox` for `policy`: the wrapped server then runs in an OS sandbox
 * built from the same policy. Throws `PlanError` when the package cannot be imported.
 */
export async function loadSandboxSpawn(
  policy: ResolvedPolicy,
  load: () => Promise<unknown> = () => import('@plan/sandbox' as string),
): Promise<SpawnServer> {
  let module: unknown
  try {
    module = await load()
  } catch (error) {
    throw sandboxError('--sandbox requires @plan/sandbox, which could not be imported.', error)
  }
  const createSandbox = (module as Partial<SandboxModule>)?.createSandbox
  if (typeof createSandbox !== 'function')
    throw sandboxError('--sandbox requires @plan/sandbox, whose createSandbox was not found.')
  const sandbox = createSandbox(policy)
  return (argv, options) => sandbox.spawn(argv, options)
}
