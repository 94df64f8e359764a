import { readFile } from 'node:fs/promises'
import type { JsonObject, PlanCompiler, ToolFunction } from '@plan/core'
import { createReferenceTools } from '@plan/core/node'

/** What ran, in order: `tool args` lines, so a scenario can show that a stopped call never ran. */
export type RunLog = string[]

/** The demo's tools: the reference tools and the `rewrite_logging` codemod, each logging its runs. */
export function createDemoTools(compiler: PlanCompiler, ran: RunLog): Record<string, ToolFunction> {
  const { tools } = createReferenceTools(compiler, { runCommand: { timeoutMs: 60_000 } })
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
