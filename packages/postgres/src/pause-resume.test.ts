import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { postgresTestUrl, uniquePrefix } from './test-utils/postgres-url.js'

const url = postgresTestUrl()
const worker = fileURLToPath(new URL('./__fixtures__/pause-worker.ts', import.meta.url))

interface WorkerResult {
  readonly decisions: readonly { callId: string; allowed: boolean; codes: readonly string[] }[]
  readonly paused: boolean
}

/** Runs one process of the run to its end (paused or done). */
function run(env: Record<string, unknown>): Promise<WorkerResult> {
  const child = spawn(process.execPath, [worker], {
    env: { ...process.env, PLAN_PAUSE_WORKER: JSON.stringify(env) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  return new Promise((resolve, reject) => {
    child.on('exit', (code, signal) => {
      if (code === 0) resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as WorkerResult)
      else reject(new Error(`worker ended with ${code ?? signal}: ${stderr}`))
    })
  })
}

async function sharedBudgetUsed(prefix: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const rows = await client.query<{ used: number }>(
      `SELECT used FROM ${prefix}shared_budgets WHERE budget = 'writes' AND key = 'acme'`,
    )
    return rows.rows.map((row) => row.used)
  } finally {
    await client.end()
  }
}

describe.skipIf(url === undefined)(
  'a guarded run whose tool pauses it, resumed by new processes',
  () => {
    let dir: string

    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'plan-pause-'))
    })

    afterEach(async () => {
      await rm(dir, { recursive: true, force: true })
    })

    for (const asks of [1, 3]) {
      it(`should count a call its tool paused ${asks} time(s) once against the shared and identical-call budgets (langchain)`, {
        timeout: 120_000,
      }, async () => {
        const options = { url, prefix: uniquePrefix(), runId: randomUUID(), dir, asks }
        const results: WorkerResult[] = []
        for (let invocation = 0; invocation <= asks; invocation += 1)
          results.push(await run({ ...options, invocation }))
        expect(results.map((result) => result.paused)).toEqual([
          ...Array.from({ length: asks }, () => true),
          false,
        ])
        // Three calls fit the shared budget of three; the fourth does not.
        expect((await readFile(join(dir, 'ran.log'), 'utf8')).trim().split('\n')).toEqual([
          'a',
          'b',
          'c',
        ])
        const last = results.at(-1)?.decisions ?? []
        expect(last.find((decision) => decision.callId === 'c4')?.codes).toEqual([
          'budget_exhausted',
        ])
        expect(await sharedBudgetUsed(options.prefix)).toEqual([3])
        const allowedA = results.flatMap((result) =>
          result.decisions.filter((decision) => decision.callId === 'c1' && decision.allowed),
        )
        expect(allowedA).toHaveLength(asks + 1)
      })
    }
  },
)
