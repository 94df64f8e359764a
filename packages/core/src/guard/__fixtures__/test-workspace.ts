import { createPlanCompiler } from '../../compile/create-plan-compiler.js'
import type { PolicyInput } from '../../schema/policy-schema.js'
import type { PlanCompiler } from '../../types/plan-compiler.js'

export type { TestWorkspace } from '../../testing/create-test-workspace.js'
export { createTestWorkspace } from '../../testing/create-test-workspace.js'

/** Tools used across the run-time tests. */
export const testTools: PolicyInput['tools'] = {
  view_file: { args: { file: { type: 'path', access: 'read' } } },
  write_file: { args: { file: { type: 'path', access: 'write' }, content: { type: 'string' } } },
  echo: { args: { text: { type: 'string' }, n: { type: 'number', required: false } } },
  produce: { args: { n: { type: 'number', required: false } } },
  run_command: { args: { command: { type: 'command' } } },
}

export function createTestCompiler(
  root: string,
  extra: Partial<PolicyInput> = {},
): Promise<PlanCompiler> {
  return createPlanCompiler({
    version: 1,
    workspace: { roots: [root] },
    tools: testTools,
    commands: { allow: ['ls', 'echo', 'sleep', 'yes', 'printenv', 'cat'] },
    ...extra,
  })
}
