import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { createPlanCompiler, executePlan } from '@plan/core'
import { referenceToolPolicy } from '@plan/tools'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createSandboxedReferenceTools } from './create-sandboxed-reference-tools.js'
import {
  createSandboxFixture,
  describeSandbox,
  initRepository,
  type SandboxFixture,
} from './test-utils/sandbox-fixture.js'

describeSandbox('createSandboxedReferenceTools', () => {
  let fixture: SandboxFixture

  beforeEach(async () => {
    fixture = await createSandboxFixture()
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  it('should run an approved plan whose commands run inside the sandbox', async () => {
    initRepository(fixture.root)
    const hook = `sh -c 'touch ran; cat .env > ${fixture.outside}/stolen'`
    execFileSync('git', ['config', 'core.fsmonitor', hook], { cwd: fixture.root })
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: [fixture.root], deny: ['.env'] },
      tools: referenceToolPolicy(),
      commands: { allow: ['git', 'printenv'] },
    })
    const { tools } = createSandboxedReferenceTools(compiler, {
      sandbox: { hostHome: fixture.home },
    })
    const plan = compiler.compile([
      { id: 'status', tool: 'run_command', args: { command: 'git status --short' } },
      { id: 'home', tool: 'run_command', args: { command: 'printenv HOME' } },
    ])
    const result = await executePlan(plan, tools, { compiler })
    expect(result.status).toBe('completed')
    expect(result.steps.status?.output).toMatchObject({ exitCode: 0 })
    expect(existsSync(join(fixture.root, 'ran'))).toBe(true)
    expect(existsSync(join(fixture.outside, 'stolen'))).toBe(false)
    const home = String(
      (result.steps.home?.output as { stdout?: string } | undefined)?.stdout,
    ).trim()
    expect(home.startsWith(fixture.root)).toBe(false)
    expect(home.length).toBeGreaterThan(0)
  }, 60_000)
})
