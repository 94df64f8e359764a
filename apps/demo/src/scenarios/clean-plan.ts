import { createPlanCompiler, executePlan } from '@plan/core'
import type { StepMark } from '@plan/render'
import { demoPolicy } from '../demo-policy.js'
import { createDemoTools, type RunLog } from '../demo-tools.js'
import type { ScenarioResult } from '../scenario.js'
import type { DemoWorkspace } from '../workspace.js'

/** The seed article's task as an approved plan, run by the executor with independent steps in parallel. */
export const cleanPlan = [
  { id: 'read_auth', tool: 'view_file', args: { file: 'src/auth.js' } },
  { id: 'read_db', tool: 'view_file', args: { file: 'src/database.js' } },
  { id: 'read_notes', tool: 'view_file', args: { file: 'NOTES.md' } },
  {
    id: 'migrate_auth',
    tool: 'rewrite_logging',
    args: { file: 'src/auth.js' },
    depends_on: ['read_auth', 'read_notes'],
  },
  {
    id: 'migrate_db',
    tool: 'rewrite_logging',
    args: { file: 'src/database.js' },
    depends_on: ['read_db', 'read_notes'],
  },
  {
    id: 'run_tests',
    tool: 'run_command',
    args: { command: 'npm test' },
    depends_on: ['migrate_auth', 'migrate_db'],
  },
]

export async function cleanPlanScenario(workspace: DemoWorkspace): Promise<ScenarioResult> {
  const ran: RunLog = []
  const compiler = await createPlanCompiler(demoPolicy(workspace.root))
  const compiled = compiler.compile(cleanPlan)
  let running = 0
  let mostAtOnce = 0
  const result = await executePlan(compiled, createDemoTools(compiler, ran), {
    compiler,
    concurrency: 4,
    timeoutMs: 60_000,
    onEvent: (event) => {
      if (event.type === 'step-start') mostAtOnce = Math.max(mostAtOnce, ++running)
      if (event.type === 'step-end') running -= 1
    },
  })
  const status: Record<string, StepMark> = {}
  for (const [id, step] of Object.entries(result.steps))
    status[id] = step.status === 'aborted' ? 'failed' : step.status
  const tests = result.steps.run_tests?.output as { exitCode?: number } | undefined
  return {
    name: 'clean-plan',
    title: 'A clean plan: read, migrate logging, run the tests — executed in parallel',
    via: 'core',
    model: 'none (a fixed plan)',
    expectation:
      'approved; every step done; the migrated project passes its tests; independent steps ran at the same time',
    passed: result.status === 'completed' && tests?.exitCode === 0 && mostAtOnce > 1,
    plan: compiled,
    issues: [],
    status,
    ran,
    stopped: [],
    notes: [
      `levels: ${compiled.levels.map((level) => `[${level.join(', ')}]`).join(' → ')}`,
      `most steps running at once: ${mostAtOnce}`,
      `npm test exit code: ${tests?.exitCode ?? 'none'}`,
    ],
  }
}
