import type { PlanCompiler } from '@plan/core'
import { createReferenceTools, type ReferenceTools, type ReferenceToolsOptions } from '@plan/tools'
import { createSandbox, type Sandbox } from './create-sandbox.js'
import type { SandboxOptions } from './sandbox-config.js'

/** Options of {@link createSandboxedReferenceTools}. */
export interface SandboxedReferenceToolsOptions extends ReferenceToolsOptions {
  /** How the sandbox is built (it is always derived from the compiler's policy). */
  readonly sandbox?: SandboxOptions
}

/**
 * Core's reference tools with `run_command` running every program inside a sandbox built
 * from the compiler's policy. Fails closed like the sandbox: a call whose sandbox cannot
 * start is refused with a `SandboxError`.
 *
 * @example
 * ```ts
 * const { tools } = createSandboxedReferenceTools(compiler)
 * await executePlan(compiler.compile(plan), tools, { compiler })
 * ```
 */
export function createSandboxedReferenceTools(
  compiler: PlanCompiler,
  options: SandboxedReferenceToolsOptions = {},
): ReferenceTools & { readonly sandbox: Sandbox } {
  const sandbox = createSandbox(compiler, options.sandbox)
  const reference = createReferenceTools(compiler, {
    ...options,
    runCommand: {
      ...options.runCommand,
      runner: (argv, runOptions) => sandbox.run(argv, runOptions),
    },
  })
  return { ...reference, sandbox }
}
