import { readFile } from 'node:fs/promises'
import type { JsonObject, PlanCompiler, ToolFunction } from '@plan/core'
import { checkSandbox, createSandboxedReferenceTools } from '@plan/sandbox'
import { createReferenceTools, type ReferenceTools } from '@plan/tools'

/** What ran, in order: `tool args` lines, so a scenario can show that a stopped call never ran. */
export type RunLog = string[]

/**
 * The reference tools, `run_command` inside the OS sandbox. Without bubblewrap the demo runs
 * commands unsandboxed (with a warning) outside CI; in CI a missing sandbox is an error.
 */
function referenceTools(compiler: PlanCompiler): ReferenceTools {
  const check = checkSandbox(compiler)
  if (check.available || process.env.CI === 'true')
    return createSandboxedReferenceTools(compiler, { runCommand: { timeoutMs: 60_000 } })
  return createReferenceTools(compiler, { runCommand: { timeoutMs: 60_000, sandbox: 'none' } })
}

/** The demo's tools: the reference tools and the `rewrite_logging` codemod, each logging its runs. */
export function createDemoTools(compiler: PlanCompiler, ran: RunLog): Record<string, ToolFunction> {
  const { tools } = referenceTools(compiler)
  const rewrite: ToolFunction = async (args, context) => {
    const file = args.file
    const checked = await compiler.checkPathOnDisk(file, 'write')
    if (!checked.allowed) throw new Error(checked.issue.message)
    const source = await readFile(checked.resolved, 'utf8')
    const migrated = source.replaceAll('console.log(', 'log.info(')
    const count = source.split('console.log(').length - 1
    await tools.write_file({ file: checked.resolved, content: migrated }, context)
    return { file: checked.resolved, replaced: count }
  }
  const all: Record<string, ToolFunction> = { ...tools, rewrite_logging: rewrite }
  const logged: Record<string, ToolFunction> = {}
  for (const [name, run] of Object.entries(all)) {
    logged[name] = (args: JsonObject, context) => {
      ran.push(`${name} ${JSON.stringify(args)}`)
      return run(args, context)
    }
  }
  return logged
}
