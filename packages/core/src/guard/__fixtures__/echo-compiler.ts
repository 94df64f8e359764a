import { createPlanCompiler } from '../../compile/create-plan-compiler.js'
import type { PlanCompiler } from '../../types/plan-compiler.js'

/** A compiler for one `echo` tool that takes a `text` string, in a workspace at `/srv/repo`. */
export function echoCompiler(): Promise<PlanCompiler> {
  return createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: { echo: { args: { text: { type: 'string' } } } },
  })
}
