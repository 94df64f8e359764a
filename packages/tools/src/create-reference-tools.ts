import type { PlanCompiler, PolicyInput, ToolFunction } from '@plan/core'
import { createListFilesTool, type ListFilesOptions } from './list-files-tool.js'
import { referenceToolPolicy } from './reference-tool-policy.js'
import { createRunCommandTool, type RunCommandOptions } from './run-command-tool.js'
import { createViewFileTool, type ViewFileOptions } from './view-file-tool.js'
import { createWriteFileTool, type WriteFileOptions } from './write-file-tool.js'

/** Options for {@link createReferenceTools}, one object per tool. */
export interface ReferenceToolsOptions {
  readonly viewFile?: ViewFileOptions
  readonly writeFile?: WriteFileOptions
  readonly listFiles?: ListFilesOptions
  readonly runCommand?: RunCommandOptions
}

/** The reference tools and the policy fragment that declares them. */
export interface ReferenceTools {
  readonly tools: {
    readonly view_file: ToolFunction
    readonly write_file: ToolFunction
    readonly list_files: ToolFunction
    readonly run_command: ToolFunction
  }
  /** The `tools` section matching these tools (see {@link referenceToolPolicy}). */
  readonly policy: PolicyInput['tools']
}

/**
 * Creates the reference tools `view_file`, `write_file`, `list_files` and `run_command`,
 * bound to a compiler's workspace and command rules. Each tool checks its own inputs again
 * (paths on disk, the command), so it stays safe even when called without the guard.
 *
 * @example
 * ```ts
 * const compiler = await createPlanCompiler({
 *   version: 1,
 *   workspace: { roots: ['/srv/repo'] },
 *   tools: referenceToolPolicy(),
 *   commands: { allow: ['git'] },
 * })
 * const { tools } = createReferenceTools(compiler, { runCommand: { timeoutMs: 10_000 } })
 * const result = await executePlan(compiler.compile(plan), tools, { compiler })
 * ```
 */
export function createReferenceTools(
  compiler: PlanCompiler,
  options: ReferenceToolsOptions = {},
): ReferenceTools {
  return {
    tools: {
      view_file: createViewFileTool(compiler, options.viewFile),
      write_file: createWriteFileTool(compiler, options.writeFile),
      list_files: createListFilesTool(compiler, options.listFiles),
      run_command: createRunCommandTool(compiler, options.runCommand),
    },
    policy: referenceToolPolicy(),
  }
}
