// A separate process that reserves one shared budget, `attempts` callers at a time, round after
// round, until `stop` exists (and at least one round ran). On stdout: how each call ended.
import { existsSync } from 'node:fs'
import { createPostgresGuardStore } from '@plan/postgres'

const [url, prefix, attempts, maxCalls, stop] = process.argv.slice(2)
const store = createPostgresGuardStore({ connectionString: url as string, tablePrefix: prefix })
const reservation = { budget: 'shell', key: 'acme', windowStart: 0, maxCalls: Number(maxCalls) }
const outcome = { reserved: 0, refused: 0, failed: 0 }
do {
  await Promise.all(
    Array.from({ length: Number(attempts) }, () =>
      store.reserve([reservation]).then(
        (result) => {
          outcome[result.reserved ? 'reserved' : 'refused'] += 1
        },
        () => {
          outcome.failed += 1
        },
      ),
    ),
  )
} while (!existsSync(stop as string))
await store.close()
process.stdout.write(`${JSON.stringify(outcome)}\n`)
