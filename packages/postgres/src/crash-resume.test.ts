import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createPostgresGuardStore } from './create-postgres-guard-store.js'
import { postgresTestUrl, uniquePrefix } from './test-utils/postgres-url.js'

const url = postgresTestUrl()
const worker = fileURLToPath(new URL('./__fixtures__/crash-worker.ts', import.meta.url))

interface Decision {
  readonly allowed: boolean
  readonly codes: readonly string[]
}

type Adapter = 'langchain' | 'ai-sdk'

interface WorkerResult {
  readonly decisions: readonly Decision[]
  /** What the run put to a human through LangGraph's `interrupt()`. */
  readonly reviews: readonly { interrupted?: { stepId: string; issue: { code: string } } }[]
  /** The `PlanError` the run ended with, if it did. */
  readonly refusal: { readonly planError: boolean; readonly codes: readonly string[] } | null
}

function start(env: Record<string, unknown>): { child: ChildProcess; output: Promise<string> } {
  const child = spawn(process.execPath, [worker], {
    env: { ...process.env, PLAN_CRASH_WORKER: JSON.stringify(env) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const output = new Promise<string>((resolve, reject) => {
    child.on('exit', (code, signal) => {
      if (code === 0) resolve(stdout)
      else reject(new Error(`worker ended with ${code ?? signal}: ${stderr}`))
    })
  })
  return { child, output }
}

/** Waits until the tool has written its first start line (the file can exist empty for a moment). */
async function waitForStart(path: string): Promise<void> {
  while (!existsSync(path) || !readFileSync(path, 'utf8').endsWith('\n'))
    await new Promise((resolve) => setTimeout(resolve, 50))
}

/**
 * What whoever can write the store's tables can do: read a run's state (its full row and the
 * changes saved since), edit it as text, and write it back as one full row. True when the edit
 * changed it.
 */
async function rewriteRun(prefix: string, edit: (text: string) => string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  // The test's tables hold one run (the LangChain middleware names it itself).
  const rows = await client.query(`SELECT run_id FROM ${prefix}guard_runs`)
  expect(rows.rows).toHaveLength(1)
  const runId = String(rows.rows[0]?.run_id)
  const reader = createPostgresGuardStore({ connectionString: url as string, tablePrefix: prefix })
  const saved = await reader.load(runId)
  await reader.close()
  if (saved === undefined) throw new Error(`no run ${runId}`)
  const text = JSON.stringify(saved.state)
  const edited = edit(text)
  await client.query(
    `UPDATE ${prefix}guard_runs SET state = $2, base_revision = revision WHERE run_id = $1`,
    [runId, edited],
  )
  await client.query(`DELETE FROM ${prefix}guard_run_changes WHERE run_id = $1`, [runId])
  await client.end()
  return edited !== text
}

describe.skipIf(url === undefined)('a guarded run killed while a tool runs', () => {
  let dir: string

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plan-crash-'))
  })

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  /** Runs the agent until its tool has started, kills it (SIGKILL), then resumes it in a new process. */
  async function crashAndResume(
    adapter: Adapter,
    idempotent: boolean,
    maxCalls: number,
    store: boolean | 'signed' | 'langgraph' = true,
    beforeResume: (prefix: string, threadId: string) => Promise<void> = async () => undefined,
    retry = false,
    perTurn = false,
    review = false,
  ) {
    const options = {
      review,
      perTurn,
      retry,
      store,
      adapter,
      url,
      prefix: uniquePrefix(),
      runId: randomUUID(),
      dir,
      idempotent,
      maxCalls,
    }
    await writeFile(join(dir, 'hang'), '')
    const first = start(options)
    const killed = first.output.catch((error: unknown) => String(error))
    await waitForStart(join(dir, 'starts.log'))
    first.child.kill('SIGKILL')
    expect(await killed).toContain('SIGKILL')
    await rm(join(dir, 'hang'))
    await beforeResume(options.prefix, options.runId)
    const output = await start(options).output
    const result = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as WorkerResult
    const starts = (await readFile(join(dir, 'starts.log'), 'utf8')).trim().split('\n')
    return { ...result, starts }
  }

  for (const adapter of ['langchain', 'ai-sdk'] as const) {
    it(`should report the interrupted call instead of running it again (${adapter})`, {
      timeout: 120_000,
    }, async () => {
      const { decisions, starts } = await crashAndResume(adapter, false, 1)
      expect(starts).toEqual(['a'])
      expect(decisions.some((decision) => decision.allowed)).toBe(false)
      expect(decisions[0]?.codes).toContain('interrupted_call')
    })
  }

  it('should run an idempotent interrupted call again within the budget, never past it (langchain)', {
    timeout: 120_000,
  }, async () => {
    const capped = await crashAndResume('langchain', true, 1)
    expect(capped.starts).toEqual(['a'])
    expect(capped.decisions[0]?.codes).toContain('budget_exhausted')
    await rm(join(dir, 'starts.log'))
    const room = await crashAndResume('langchain', true, 2)
    expect(room.starts).toEqual(['a', 'a'])
    expect(room.decisions[0]).toEqual({ allowed: true, codes: [] })
  })

  it('should run an idempotent interrupted call again within the budget (ai-sdk)', {
    timeout: 120_000,
  }, async () => {
    const room = await crashAndResume('ai-sdk', true, 2)
    expect(room.starts).toEqual(['a', 'a'])
    expect(room.decisions[0]).toEqual({ allowed: true, codes: [] })
  })

  it('should lose the running call from the count with the checkpoint alone (langchain, no store)', {
    timeout: 120_000,
  }, async () => {
    // What the store is for: LangGraph checkpoints after the tools ran, so the call was never counted.
    const { decisions, starts } = await crashAndResume('langchain', false, 1, false)
    expect(starts).toEqual(['a', 'a'])
    expect(decisions[0]).toEqual({ allowed: true, codes: [] })
  })

  it('should count the running call in the agent’s LangGraph PostgresStore, without a @plan store (langchain)', {
    timeout: 120_000,
  }, async () => {
    const reported = await crashAndResume('langchain', false, 1, 'langgraph')
    expect(reported.starts).toEqual(['a'])
    expect(reported.decisions[0]?.codes).toContain('interrupted_call')
    await rm(join(dir, 'starts.log'))
    // An idempotent tool may run again, but never past maxCalls: the start was counted.
    const capped = await crashAndResume('langchain', true, 1, 'langgraph')
    expect(capped.starts).toEqual(['a'])
    expect(capped.decisions[0]?.codes).toContain('budget_exhausted')
  })

  for (const adapter of ['langchain', 'ai-sdk'] as const) {
    it(`should refuse a state edited in the store with a PlanError carrying its issues (${adapter})`, {
      timeout: 120_000,
    }, async () => {
      const tamper = async (prefix: string) => {
        await rewriteRun(prefix, (text) => text.replace('"name":"a"', '"name":"evil"'))
      }
      const { refusal, starts } = await crashAndResume(adapter, false, 1, true, tamper)
      expect(starts).toEqual(['a'])
      expect(refusal?.planError).toBe(true)
      expect(refusal?.codes).toEqual(['plan_tampered'])
    })
  }

  for (const adapter of ['langchain', 'ai-sdk'] as const) {
    it(`should resume from a signed store, and refuse a state whose progress was reset in it (${adapter})`, {
      timeout: 120_000,
    }, async () => {
      const resumed = await crashAndResume(adapter, false, 1, 'signed')
      expect(resumed.starts).toEqual(['a'])
      expect(resumed.decisions[0]?.codes).toContain('interrupted_call')
      await rm(join(dir, 'starts.log'))
      // What a forger would write: the started call as never counted and still to do.
      const reset = async (prefix: string) => {
        const edited = await rewriteRun(prefix, (text) =>
          text.includes('"calls":1')
            ? text.replace('"calls":1', '"calls":0').replaceAll('"running"', '"pending"')
            : text,
        )
        expect(edited).toBe(true)
      }
      const { refusal, starts } = await crashAndResume(adapter, false, 1, 'signed', reset)
      expect(starts).toEqual(['a'])
      expect(refusal).toEqual({ planError: true, codes: ['signature_invalid'] })
    })
  }

  for (const store of [true, 'signed'] as const) {
    it(`should refuse a guard state forged in the checkpoint instead of resuming from it (langchain, ${store === true ? 'store' : 'signed store'})`, {
      timeout: 120_000,
    }, async () => {
      // What a forger with write access to the checkpointer's tables would write: a state newer
      // than the store's, which took it over before the store was the run's source of truth.
      const forge = async (_prefix: string, threadId: string) => {
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        const result = await client.query(
          `UPDATE checkpoint_blobs SET blob = convert_to(replace(convert_from(blob, 'UTF8'), '"revision":1,', '"revision":99,'), 'UTF8') WHERE thread_id = $1 AND channel = '_planGuardState'`,
          [threadId],
        )
        await client.end()
        expect(result.rowCount).toBeGreaterThan(0)
      }
      const { refusal, starts } = await crashAndResume('langchain', false, 1, store, forge)
      expect(starts).toEqual(['a'])
      expect(refusal).toEqual({ planError: true, codes: ['state_corrupt'] })
    })
  }

  it('should run an interrupted call again when a human approves it, within the budget (langchain)', {
    timeout: 120_000,
  }, async () => {
    const noop = async () => undefined
    const { decisions, starts } = await crashAndResume('langchain', false, 2, true, noop, true)
    expect(starts).toEqual(['a', 'a'])
    expect(decisions[0]).toEqual({ allowed: true, codes: [] })
  })

  it('should report the interrupted call that a new turn asks for again, under a new call id (ai-sdk, per-turn mode)', {
    timeout: 120_000,
  }, async () => {
    const noop = async () => undefined
    const { decisions, starts } = await crashAndResume('ai-sdk', false, 1, true, noop, false, true)
    expect(starts).toEqual(['a'])
    expect(decisions.some((decision) => decision.allowed)).toBe(false)
    expect(decisions[0]?.codes).toContain('interrupted_call')
  })

  it('should put the interrupted call to a human through interrupt(), and run it once approved (langchain)', {
    timeout: 120_000,
  }, async () => {
    const noop = async () => undefined
    const resumed = await crashAndResume('langchain', false, 2, true, noop, false, false, true)
    expect(resumed.reviews).toMatchObject([
      { interrupted: { stepId: 'c1', issue: { code: 'interrupted_call' } } },
    ])
    expect(resumed.starts).toEqual(['a', 'a'])
    expect(resumed.decisions.filter((decision) => decision.allowed)).toHaveLength(1)
  })
})
