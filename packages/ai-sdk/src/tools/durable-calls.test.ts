import {
  createMemoryGuardStore,
  createPlanCompiler,
  createPlanGuard,
  createSignedGuardStore,
  type GuardStore,
  PlanError,
  type PlanGuardState,
  type PolicyInput,
  type SavedRunState,
} from '@plan/core'
import { generateText, stepCountIs, tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createPlanGuardedTools } from '../guarded/create-plan-guarded-tools.js'
import { promptOf, scriptedModel } from '../test/scripted-model.js'
import { createTestWorkspace, testPolicy } from '../test/test-workspace.js'
import { guardTools } from './guard-tools.js'

const plan = [{ id: 'ls', tool: 'run_command', args: { command: 'ls' } }]
const callLs = { calls: [{ id: 'c1', tool: 'run_command', input: { command: 'ls' } }] }

/** A run_command tool that records what the store held for the run when it started. */
function recordingTools(onStart: () => Promise<void>) {
  const started: string[] = []
  const tools = {
    run_command: tool({
      inputSchema: z.object({ command: z.string() }),
      execute: async ({ command }: { command: string }) => {
        started.push(command)
        await onStart()
        return `ran ${command}`
      },
    }),
  }
  return { tools, started }
}

/**
 * A signed store over a table of rows that the test can edit, as anyone with write access to
 * the database could.
 */
function signedTable() {
  const rows = new Map<string, SavedRunState>()
  const table: GuardStore = {
    ...createMemoryGuardStore(),
    load: async (runId) => structuredClone(rows.get(runId)),
    save: async (runId, saved) => {
      rows.set(runId, structuredClone(saved))
    },
  }
  return { rows, store: createSignedGuardStore(table, { keys: ['k'.repeat(32)] }) }
}

describe('guardTools with a store', () => {
  it('should save every one of parallel first calls, each under its own revision', async () => {
    const store = createMemoryGuardStore()
    const policy = testPolicy((await createTestWorkspace()).root)
    const commands = ['ls', 'git status', 'git log']
    const compiler = await createPlanCompiler(policy)
    const steps = commands.map((command, index) => ({
      id: `s${index}`,
      tool: 'run_command',
      args: { command },
    }))
    const guard = createPlanGuard(compiler.compile(steps), { compiler })
    const { tools: raw, started } = recordingTools(async () => undefined)
    const tools = guardTools(raw, guard, { store, runId: 'parallel' })
    const execute = tools.run_command.execute as unknown as (
      input: unknown,
      options: { toolCallId: string; messages: [] },
    ) => Promise<unknown>
    await Promise.all(
      commands.map((command, index) =>
        execute({ command }, { toolCallId: `c${index}`, messages: [] }),
      ),
    )
    expect([...started].sort()).toEqual([...commands].sort())
    const saved = await store.load('parallel')
    expect(saved?.revision).toBe(6)
    expect((saved?.state as PlanGuardState | undefined)?.status).toEqual({
      s0: 'done',
      s1: 'done',
      s2: 'done',
    })
  })

  it('should save the state with the call counted before the tool starts', async () => {
    const store = createMemoryGuardStore()
    let seen: PlanGuardState | undefined
    const { tools, started } = recordingTools(async () => {
      seen = (await store.load('run-1'))?.state as PlanGuardState
    })
    const guarded = await createPlanGuardedTools({
      tools,
      policy: testPolicy((await createTestWorkspace()).root),
      plan,
      store,
      runId: 'run-1',
    })
    await generateText({
      model: scriptedModel([callLs]),
      tools: guarded.tools,
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })
    expect(started).toEqual(['ls'])
    expect(seen?.status).toEqual({ ls: 'running' })
    expect(seen?.calls).toBe(1)
    const after = (await store.load('run-1'))?.state as PlanGuardState
    expect(after.status).toEqual({ ls: 'done' })
  })

  it('should report an interrupted call on resume, and run it again only when approved', async () => {
    const root = (await createTestWorkspace()).root
    const store = createMemoryGuardStore()
    // What a crash leaves: the state saved before the tool started, never the one after.
    let crashed: unknown
    const first = recordingTools(async () => {
      crashed = await store.load('run-1')
    })
    const run = { policy: testPolicy(root), plan, store, runId: 'run-1' }
    const firstTools = await createPlanGuardedTools({ ...run, tools: first.tools })
    await generateText({
      model: scriptedModel([callLs]),
      tools: firstTools.tools,
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })
    for (const retry of [false, true]) {
      const resumedStore = createMemoryGuardStore()
      await resumedStore.save('run-1', crashed as { revision: number; state: unknown })
      const second = recordingTools(async () => undefined)
      const resumed = await createPlanGuardedTools({
        ...run,
        store: resumedStore,
        tools: second.tools,
        retryInterrupted: () => retry,
      })
      expect(resumed.guard.interruptedCalls().map((call) => call.stepId)).toEqual(['ls'])
      const model = scriptedModel([callLs])
      await generateText({ model, tools: resumed.tools, prompt: 'go', stopWhen: stepCountIs(3) })
      expect(second.started).toEqual(retry ? ['ls'] : [])
      if (!retry) expect(promptOf(model, 1)).toContain('interrupted_call')
      expect(resumed.guard.snapshot().calls).toBe(retry ? 2 : 1)
    }
  })

  it('should resume a run from a signed store, and refuse to resume it once its row was edited', async () => {
    const { rows, store } = signedTable()
    const run = {
      policy: testPolicy((await createTestWorkspace()).root),
      plan,
      store,
      runId: 'run-1',
    }
    const first = recordingTools(async () => undefined)
    const firstTools = await createPlanGuardedTools({ ...run, tools: first.tools })
    await generateText({
      model: scriptedModel([callLs]),
      tools: firstTools.tools,
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })
    expect(first.started).toEqual(['ls'])
    const resume = () =>
      createPlanGuardedTools({ ...run, tools: recordingTools(async () => undefined).tools })
    expect((await resume()).guard.snapshot().status).toEqual({ ls: 'done' })
    const row = rows.get('run-1') as { state: { state: PlanGuardState } }
    row.state.state = { ...row.state.state, status: { ls: 'pending' }, calls: 0 }
    const refusal = await resume().catch((error: unknown) => error)
    expect(PlanError.isInstance(refusal) ? refusal.code : refusal).toBe('signature_invalid')
  })

  it('should deny a call, unstarted, when the signed state was edited after the run resumed', async () => {
    const { rows, store } = signedTable()
    const policy = testPolicy((await createTestWorkspace()).root)
    const twoSteps = [
      ...plan,
      { id: 'status', tool: 'run_command', args: { command: 'git status' } },
    ]
    const run = { policy, plan: twoSteps, store, runId: 'run-1' }
    const first = recordingTools(async () => undefined)
    await generateText({
      model: scriptedModel([callLs]),
      tools: (await createPlanGuardedTools({ ...run, tools: first.tools })).tools,
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })
    const second = recordingTools(async () => undefined)
    const codes: string[] = []
    const resumed = await createPlanGuardedTools({
      ...run,
      tools: second.tools,
      onDecision: (event) => codes.push(event.allowed ? 'allowed' : String(event.issues[0]?.code)),
    })
    const row = rows.get('run-1') as { state: { state: PlanGuardState } }
    row.state.state = { ...row.state.state, calls: 0 }
    const callStatus = {
      calls: [{ id: 'c2', tool: 'run_command', input: { command: 'git status' } }],
    }
    await generateText({
      model: scriptedModel([callStatus]),
      tools: resumed.tools,
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })
    expect(first.started).toEqual(['ls'])
    expect(second.started).toEqual([])
    expect(codes).toEqual(['signature_invalid'])
    expect(resumed.guard.snapshot().status).toEqual({ ls: 'done', status: 'pending' })
  })

  it('should deny calls past a shared budget, and every such call without a store', async () => {
    const root = (await createTestWorkspace()).root
    const policy: PolicyInput = {
      ...testPolicy(root),
      budgets: { shared: { shell: { per: 'tenant', tools: ['run_command'], maxCalls: 1 } } },
    }
    const store = createMemoryGuardStore()
    const outcomes: string[] = []
    for (const withStore of [true, true, false]) {
      const { tools } = recordingTools(async () => undefined)
      const guarded = await createPlanGuardedTools({
        tools,
        policy,
        plan,
        ...(withStore ? { store, runId: `run-${outcomes.length}` } : {}),
        keys: { tenant: 'acme' },
        onDecision: (event) =>
          outcomes.push(event.allowed ? 'allowed' : String(event.issues[0]?.code)),
      })
      await generateText({
        model: scriptedModel([callLs]),
        tools: guarded.tools,
        prompt: 'go',
        stopWhen: stepCountIs(3),
      })
    }
    expect(outcomes).toEqual(['allowed', 'budget_exhausted', 'store_failed'])
  })
})
