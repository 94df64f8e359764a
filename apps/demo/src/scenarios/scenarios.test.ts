import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDemoWorkspace, type DemoWorkspace } from '../workspace.js'
import { agentScenarios } from './agent-scenarios.js'
import { cleanPlanScenario } from './clean-plan.js'
import { cyclePlanScenario } from './cycle-plan.js'

const fixture = fileURLToPath(new URL('../../fixture/', import.meta.url))

async function fingerprint(dir: string): Promise<string> {
  const hash = createHash('sha256')
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  for (const entry of entries.sort((left, right) =>
    join(left.parentPath, left.name).localeCompare(join(right.parentPath, right.name)),
  )) {
    const path = join(entry.parentPath, entry.name)
    hash.update(path)
    if (entry.isFile()) hash.update(await readFile(path))
  }
  return hash.digest('hex')
}

let workspace: DemoWorkspace
let before: string
beforeAll(async () => {
  before = await fingerprint(fixture)
  workspace = await createDemoWorkspace()
})
afterAll(async () => {
  await workspace.remove()
})

describe('demo scenarios', () => {
  it('should run the clean plan in parallel and leave a project whose tests pass', async () => {
    await workspace.reset()
    const result = await cleanPlanScenario(workspace)
    expect(result.passed).toBe(true)
    expect(result.ran.at(-1)).toBe('run_command {"command":"npm test"}')
    const migrated = await readFile(join(workspace.root, 'src', 'auth.js'), 'utf8')
    expect(migrated).not.toContain('console.log(')
  })

  it('should reject the cyclic plan with the cycle named and run nothing', async () => {
    const result = await cyclePlanScenario(workspace)
    expect(result.passed).toBe(true)
    expect(result.issues.find((found) => found.code === 'cyclic_dependency')?.cycle).toEqual([
      'read_auth',
      'migrate_auth',
      'read_auth',
    ])
  })

  it.each(agentScenarios().map((scenario, index) => [index, scenario] as const))(
    'should stop the attack or the loop of agent scenario %i',
    async (_index, scenario) => {
      await workspace.reset()
      const result = await scenario(workspace)
      expect(result.passed, result.name).toBe(true)
      if (result.name.startsWith('injection')) {
        expect(result.ran).toEqual([`view_file {"file":"${join(workspace.root, 'NOTES.md')}"}`])
        expect(result.stopped.map((call) => call.code)).toEqual([
          'command_pipeline',
          'path_outside_workspace',
        ])
      }
    },
  )

  it('should not change the fixture it copies', async () => {
    expect(await fingerprint(fixture)).toBe(before)
  })
})
