// A process that saves a run's full state in parts and kills itself (SIGKILL) in the middle:
// it loads the run, then saves revision `loaded + 1` as a state of `chars` characters with
// `stateChunkSize` 1,024, and dies just before part number `killAt` is sent.
import { createPostgresGuardStore, type PostgresClient, type PostgresPool } from '@plan/postgres'
import pg from 'pg'

const [url, prefix, runId, chars, killAt] = process.argv.slice(2) as string[]
const real = new pg.Pool({ connectionString: url })
let parts = 0
const beforeStatement = (text: string) => {
  if (!text.startsWith(`INSERT INTO ${prefix}guard_run_parts`)) return
  if (parts === Number(killAt)) process.kill(process.pid, 'SIGKILL')
  parts += 1
}
const pool: PostgresPool = {
  query: (text, values) => real.query(text, values === undefined ? undefined : [...values]),
  async connect(): Promise<PostgresClient> {
    const client = await real.connect()
    return {
      query: (text, values) => {
        beforeStatement(text)
        return client.query(text, values === undefined ? undefined : [...values])
      },
      release: (error) => client.release(error),
    }
  },
  end: () => real.end(),
}
const store = createPostgresGuardStore({ pool, tablePrefix: prefix, stateChunkSize: 1024 })
const loaded = await store.load(runId as string)
const revision = (loaded?.revision ?? 0) + 1
const writer = { id: 'killed', loadedRevision: loaded?.revision ?? 0 }
await store.save(runId as string, {
  revision,
  state: { by: 'killed', text: 'k'.repeat(Number(chars)) },
  writer,
})
process.stdout.write('saved\n')
await store.close()
await real.end()
