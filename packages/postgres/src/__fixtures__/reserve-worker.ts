// A separate process that makes `attempts` concurrent reservations of one shared budget.
import { createPostgresGuardStore } from '@plan/postgres'

const [url, prefix, attempts, maxCalls] = process.argv.slice(2)
const store = createPostgresGuardStore({ connectionString: url as string, tablePrefix: prefix })
const reservation = { budget: 'shell', key: 'acme', windowStart: 0, maxCalls: Number(maxCalls) }
const results = await Promise.all(
  Array.from({ length: Number(attempts) }, () => store.reserve([reservation])),
)
await store.close()
process.stdout.write(`${results.filter((result) => result.reserved).length}\n`)
