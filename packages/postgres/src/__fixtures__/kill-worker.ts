// A guarded run (AI SDK adapter, PostgreSQL store) of three non-idempotent steps that kills
// itself (SIGKILL) at one point: before or after its store write number N (`write:N:before`,
// `write:N:after`; reservations and saves are counted alike), or while the tool of a step runs
// (`tool:<step>`); `none` runs to the end. It calls the steps in order and stops at the first
// denial (a step already done is skipped). Each tool start is a line `start <step>` in
// `tools.log`, each end `end <step>`. On stdout: each call's outcome (`ran`, or its code).
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { createPlanGuardedTools } from '@plan/ai-sdk'
import type { GuardStore, PlanIssue } from '@plan/core'
import { createPostgresGuardStore } from '@plan/postgres'
import { tool } from 'ai'
import { z } from 'zod'

const [url, prefix, runId, dir, tenant, killAt] = process.argv.slice(2) as string[]
const steps = ['a', 'b', 'c']
const log = join(dir as string, 'tools.log')

const store = createPostgresGuardStore({ connectionString: url as string, tablePrefix: prefix })
let writes = 0
/** Runs a store write, killing the process before or after it when that is the kill point. */
async function write<T>(work: () => Promise<T>): Promise<T> {
  writes += 1
  if (killAt === `write:${writes}:before`) process.kill(process.pid, 'SIGKILL')
  const result = await work()
  if (killAt === `write:${writes}:after`) process.kill(process.pid, 'SIGKILL')
  return result
}
const killing: GuardStore = {
  load: (id) => store.load(id),
  save: (id, saved) => write(() => store.save(id, saved)),
  saveChanges: (id, saved) => write(() => store.saveChanges(id, saved)),
  reserve: (reservations) => write(() => store.reserve(reservations)),
  release: (reservations) => store.release(reservations),
}

const { tools } = await createPlanGuardedTools({
  tools: {
    step: tool({
      inputSchema: z.object({ id: z.string() }),
      execute: async ({ id }) => {
        appendFileSync(log, `start ${id}\n`)
        if (killAt === `tool:${id}`) process.kill(process.pid, 'SIGKILL')
        await new Promise((resolve) => setTimeout(resolve, 5))
        appendFileSync(log, `end ${id}\n`)
        return id
      },
    }),
  },
  policy: {
    version: 1,
    workspace: { roots: [dir as string] },
    tools: { step: { args: { id: { type: 'string' } } } },
    budgets: { shared: { calls: { per: 'tenant', tools: ['step'], maxCalls: 3 } } },
  },
  plan: steps.map((id, index) => ({
    id,
    tool: 'step',
    args: { id },
    ...(index === 0 ? {} : { depends_on: [steps[index - 1] as string] }),
  })),
  store: killing,
  runId: runId as string,
  keys: { tenant: tenant as string },
})
const execute = tools.step.execute as unknown as (
  input: unknown,
  options: { toolCallId: string; messages: [] },
) => Promise<unknown>
const outcomes: string[] = []
for (const id of steps) {
  const outcome = await execute({ id }, { toolCallId: `call-${id}`, messages: [] }).then(
    () => 'ran',
    (error: { issues?: readonly PlanIssue[] }) => error.issues?.[0]?.code ?? String(error),
  )
  outcomes.push(`${id}:${outcome}`)
  if (outcome === 'step_already_done') continue
  if (outcome !== 'ran') break
}
await store.close()
process.stdout.write(`${JSON.stringify(outcomes)}\n`)
