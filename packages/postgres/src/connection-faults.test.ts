import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { guardTools } from '@plan/ai-sdk'
import { createPlanCompiler, createPlanGuard, type PolicyInput } from '@plan/core'
import { tool } from 'ai'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createPostgresGuardStore } from './create-postgres-guard-store.js'
import type { PostgresPool } from './postgres-pool.js'
import { postgresTestUrl, uniquePrefix } from './test-utils/postgres-url.js'

const url = postgresTestUrl()
const worker = fileURLToPath(new URL('./__fixtures__/fault-reserve-worker.ts', import.meta.url))
const reservation = { budget: 'shell', key: 'acme', windowStart: 0, maxCalls: 100 }

/** How a worker's calls ended: `started`, or the code that denied them. */
type Outcome = Readonly<Record<string, number>>

function runWorker(
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [worker, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

function withApplicationName(base: string, name: string): string {
  const parsed = new URL(base)
  parsed.searchParams.set('application_name', name)
  return parsed.toString()
}

describe.skipIf(url === undefined)('createPostgresGuardStore when connections fail', () => {
  let dir: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plan-faults-'))
  })

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('should fail the calls of connections the server ends, never the process, and never pass K', {
    timeout: 120_000,
  }, async () => {
    const prefix = uniquePrefix()
    const name = `plan_fault_${prefix}`
    const workerUrl = withApplicationName(url as string, name)
    const setup = createPostgresGuardStore({ connectionString: url as string, tablePrefix: prefix })
    await setup.setup()
    const stop = join(dir, `stop-${prefix}`)
    const workers = Array.from({ length: 8 }, () =>
      runWorker([workerUrl, prefix, '32', String(reservation.maxCalls), stop]),
    )
    const admin = new pg.Client({ connectionString: url as string })
    await admin.connect()
    const usedNow = async () => {
      const result = await admin.query(
        `SELECT coalesce(max(used), 0) AS used FROM ${prefix}shared_budgets`,
      )
      return Number(result.rows[0]?.used)
    }
    let terminated = 0
    let highest = 0
    // Every connection of the workers, again and again, until 50 were ended mid-work.
    while (terminated < 50) {
      const result = await admin.query(
        'SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS ended FROM pg_stat_activity WHERE application_name = $1',
        [name],
      )
      terminated += Number(result.rows[0]?.ended ?? 0)
      highest = Math.max(highest, await usedNow())
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    await writeFile(stop, '')
    const results = await Promise.all(workers)
    const used = await usedNow()
    const runs = await admin.query(`SELECT count(*) AS runs FROM ${prefix}guard_runs`)
    await admin.end()
    await setup.close()

    expect(results.map((result) => [result.code, result.stderr])).toEqual(
      results.map(() => [0, '']),
    )
    const outcomes = results.map((result) => JSON.parse(result.stdout) as Outcome)
    const total = (code: string) => outcomes.reduce((sum, outcome) => sum + (outcome[code] ?? 0), 0)
    // Every caller was answered: started, or denied with store_failed or budget_exhausted.
    for (const outcome of outcomes) {
      const codes = Object.keys(outcome).filter((code) => code !== 'started')
      expect(
        codes.filter((code) => code !== 'store_failed' && code !== 'budget_exhausted'),
      ).toEqual([])
      const answered = Object.values(outcome).reduce((sum, count) => sum + count, 0)
      expect(answered % 32).toBe(0)
    }
    expect(total('store_failed')).toBeGreaterThan(0)
    // Each started call was counted and its state saved; the count never passed K.
    expect(total('started')).toBeLessThanOrEqual(used)
    expect(total('started')).toBeLessThanOrEqual(Number(runs.rows[0]?.runs))
    expect(Math.max(highest, used)).toBeLessThanOrEqual(reservation.maxCalls)
  })

  it('should try its setup again after one that never ended, with a pool it was given', {
    timeout: 60_000,
  }, async () => {
    const real = new pg.Pool({ connectionString: url as string })
    let connects = 0
    // The first connection hangs, as one to a server that stopped answering does.
    const pool = {
      query: real.query.bind(real),
      end: () => real.end(),
      connect: () => (++connects === 1 ? new Promise<never>(() => undefined) : real.connect()),
    }
    const store = createPostgresGuardStore({
      pool: pool as unknown as PostgresPool,
      tablePrefix: uniquePrefix(),
      timeouts: { callMs: 300 },
    })
    await expect(store.load('run')).rejects.toThrow(/did not answer/)
    expect(await store.load('run')).toBeUndefined()
    expect(connects).toBe(2)
    await real.end()
  })

  it('should fail a reservation that waits on a table lock, and count the next one', {
    timeout: 60_000,
  }, async () => {
    const prefix = uniquePrefix()
    const store = createPostgresGuardStore({
      connectionString: url as string,
      tablePrefix: prefix,
      timeouts: { lockMs: 200 },
    })
    await store.setup()
    const holder = new pg.Client({ connectionString: url as string })
    await holder.connect()
    await holder.query('BEGIN')
    await holder.query(`LOCK TABLE ${prefix}shared_budgets IN ACCESS EXCLUSIVE MODE`)
    const waiting = await store.reserve([reservation]).catch((error: unknown) => error)
    await holder.query('ROLLBACK')
    await holder.end()
    expect((waiting as { code?: string }).code).toBe('55P03')
    expect(await store.reserve([reservation])).toEqual({ reserved: true })
    await store.close()
  })
})

describe('createPostgresGuardStore on a server that never answers', () => {
  let server: Server
  let port: number
  const sockets: Socket[] = []

  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.push(socket)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as { port: number }).port
  })

  afterAll(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  })

  it('should reject every load, save and reservation once its timeout passed', {
    timeout: 60_000,
  }, async () => {
    const store = createPostgresGuardStore({
      connectionString: `postgres://plan@127.0.0.1:${port}/plan`,
      timeouts: { connectMs: 300, callMs: 1_000 },
    })
    const calls = [
      ...Array.from({ length: 32 }, () => store.reserve([reservation])),
      store.load('run'),
      store.save('run', { revision: 1, state: {} }),
    ]
    const outcomes = await Promise.allSettled(calls)
    expect(outcomes.map((outcome) => outcome.status)).toEqual(calls.map(() => 'rejected'))
    await store.close()
    expect(sockets.length).toBeGreaterThan(0)
  })

  it('should deny every guarded call with store_failed, and start no tool', {
    timeout: 60_000,
  }, async () => {
    const store = createPostgresGuardStore({
      connectionString: `postgres://plan@127.0.0.1:${port}/plan`,
      timeouts: { connectMs: 300, callMs: 1_000 },
    })
    const dir = await mkdtemp(join(tmpdir(), 'plan-silent-'))
    const policy: PolicyInput = {
      version: 1,
      workspace: { roots: [dir] },
      tools: { note: { args: { text: { type: 'string' } } } },
    }
    const compiler = await createPlanCompiler(policy)
    const steps = Array.from({ length: 16 }, (_, index) => ({
      id: `s${index}`,
      tool: 'note',
      args: { text: `n${index}` },
    }))
    const guard = createPlanGuard(compiler.compile(steps), { compiler })
    const started: string[] = []
    const tools = guardTools(
      {
        note: tool({
          inputSchema: z.object({ text: z.string() }),
          execute: async ({ text }) => {
            started.push(text)
            return text
          },
        }),
      },
      guard,
      { store, runId: 'silent-run' },
    )
    const execute = tools.note.execute as unknown as (
      input: unknown,
      options: { toolCallId: string; messages: [] },
    ) => Promise<unknown>
    const codes = await Promise.all(
      steps.map((step) =>
        execute(step.args, { toolCallId: step.id, messages: [] }).then(
          () => 'ran',
          (error: { issues?: readonly { code: string }[] }) => error.issues?.[0]?.code,
        ),
      ),
    )
    await store.close()
    await rm(dir, { recursive: true, force: true })
    expect(codes).toEqual(steps.map(() => 'store_failed'))
    expect(started).toEqual([])
  })
})
