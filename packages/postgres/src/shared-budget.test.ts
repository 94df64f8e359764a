import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPlanGuardedTools } from '@plan/ai-sdk'
import type { PlanIssue, PolicyInput } from '@plan/core'
import { tool } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createPostgresGuardStore, type PostgresGuardStore } from './create-postgres-guard-store.js'
import { postgresTestUrl, uniquePrefix } from './test-utils/postgres-url.js'

const url = postgresTestUrl()

describe.skipIf(url === undefined)('a shared budget in a PostgreSQL guard store', () => {
  let dir: string
  let store: PostgresGuardStore

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plan-shared-'))
    store = createPostgresGuardStore({
      connectionString: url as string,
      tablePrefix: uniquePrefix(),
    })
  })

  afterAll(async () => {
    await store.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('should let concurrent runs of one tenant together make at most maxCalls calls per window', {
    timeout: 60_000,
  }, async () => {
    const policy: PolicyInput = {
      version: 1,
      workspace: { roots: [dir] },
      tools: { run_command: { args: { command: { type: 'command' } } } },
      commands: { allow: ['ls'] },
      budgets: {
        shared: {
          shell: { per: 'tenant', tools: ['run_command'], maxCalls: 4, windowSeconds: 3600 },
        },
      },
    }
    const started: string[] = []
    const denied: PlanIssue[][] = []
    async function oneRun(tenant: string): Promise<void> {
      const { tools } = await createPlanGuardedTools({
        tools: {
          run_command: tool({
            inputSchema: z.object({ command: z.string() }),
            execute: async () => {
              started.push(tenant)
              return 'ok'
            },
          }),
        },
        policy,
        plan: [{ id: 'ls', tool: 'run_command', args: { command: 'ls' } }],
        store,
        runId: randomUUID(),
        keys: { tenant },
      })
      const execute = tools.run_command.execute as unknown as (
        input: unknown,
        options: { toolCallId: string; messages: []; context: undefined },
      ) => Promise<unknown>
      await execute(
        { command: 'ls' },
        { toolCallId: randomUUID(), messages: [], context: undefined },
      ).catch((error: { issues: PlanIssue[] }) => denied.push(error.issues))
    }
    await Promise.all([...Array.from({ length: 12 }, () => oneRun('acme')), oneRun('globex')])
    expect(started.filter((tenant) => tenant === 'acme')).toHaveLength(4)
    expect(started.filter((tenant) => tenant === 'globex')).toHaveLength(1)
    expect(denied).toHaveLength(8)
    expect(denied.every((issues) => issues[0]?.code === 'budget_exhausted')).toBe(true)
  })
})
