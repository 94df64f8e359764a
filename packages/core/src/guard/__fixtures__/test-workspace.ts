import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPlanCompiler } from '../../compile/create-plan-compiler.js'
import type { PolicyInput } from '../../schema/policy-schema.js'
import type { PlanCompiler } from '../../types/plan-compiler.js'

/** A temporary workspace folder beside an `outside` folder, removed by `cleanup`. */
export interface TestWorkspace {
  readonly base: string
  readonly root: string
  readonly outside: string
  cleanup(): Promise<void>
}

export async function createTestWorkspace(): Promise<TestWorkspace> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'plan-run-')))
  const root = join(base, 'ws')
  const outside = join(base, 'outside')
  await mkdir(root)
  await mkdir(outside)
  return { base, root, outside, cleanup: () => rm(base, { recursive: true, force: true }) }
}

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
