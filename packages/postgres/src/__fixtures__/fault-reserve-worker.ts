// A separate process that starts guarded calls as the adapters do (`startDurableCall`: the
// shared budget reserved, then the run's state saved), `attempts` callers at a time, each of a
// run of its own, round after round, until `stop` exists (and at least one round ran). On
// stdout: how each call ended (`started`, or the code that denied it).
import { existsSync } from 'node:fs'
import { startDurableCall } from '@plan/core/adapter'
import { policySchema } from '@plan/core/schemas'
import { createPostgresGuardStore } from '@plan/postgres'

const [url, prefix, attempts, maxCalls, stop] = process.argv.slice(2)
const store = createPostgresGuardStore({ connectionString: url as string, tablePrefix: prefix })
const policy = policySchema.parse({
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: { shell: {} },
  budgets: { shared: { shell: { per: 'tenant', tools: ['shell'], maxCalls: Number(maxCalls) } } },
})
const outcome: Record<string, number> = { started: 0 }
let round = 0
do {
  round += 1
  await Promise.all(
    Array.from({ length: Number(attempts) }, async (_, index) => {
      const runId = `${process.pid}-${round}-${index}`
      const issues = await startDurableCall({
        store,
        runId,
        policy,
        tool: 'shell',
        stepId: 's1',
        keys: { tenant: 'acme' },
        saved: () => ({ revision: 1, state: { running: 's1' } }),
      })
      const key = issues[0]?.code ?? 'started'
      outcome[key] = (outcome[key] ?? 0) + 1
    }),
  )
} while (!existsSync(stop as string))
await store.close()
process.stdout.write(`${JSON.stringify(outcome)}\n`)
