import { createPlanCompiler } from '@plan/core'
import { demoPolicy } from '../demo-policy.js'
import type { ScenarioResult } from '../scenario.js'
import type { DemoWorkspace } from '../workspace.js'

/** The seed article's plan 2: two steps that wait for each other. */
export const cyclicPlan = [
  {
    id: 'read_auth',
    tool: 'view_file',
    args: { file: 'src/auth.js' },
    depends_on: ['migrate_auth'],
  },
  {
    id: 'migrate_auth',
    tool: 'rewrite_logging',
    args: { file: 'src/auth.js' },
    depends_on: ['read_auth'],
  },
  {
    id: 'run_tests',
    tool: 'run_command',
    args: { command: 'npm test' },
    depends_on: ['migrate_auth'],
  },
]

export async function cyclePlanScenario(workspace: DemoWorkspace): Promise<ScenarioResult> {
  const compiler = await createPlanCompiler(demoPolicy(workspace.root))
  const result = compiler.validate(cyclicPlan)
  const cycle = result.success
    ? undefined
    : result.issues.find((found) => found.code === 'cyclic_dependency')?.cycle
  return {
    name: 'cycle-plan',
    title: 'A plan with a cycle: rejected before anything runs, with the cycle named',
    via: 'core',
    model: 'none (a fixed plan)',
    expectation:
      'rejected with cyclic_dependency naming read_auth → migrate_auth → read_auth; nothing runs',
    passed: !result.success && cycle?.join(' → ') === 'read_auth → migrate_auth → read_auth',
    plan: cyclicPlan,
    issues: result.issues,
    status: {},
    ran: [],
    stopped: [],
    notes: [],
  }
}
