import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PlanGuardState } from '@plan/core'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresGuardStore } from './create-postgres-guard-store.js'
import { postgresTestUrl, uniquePrefix } from './test-utils/postgres-url.js'

const url = postgresTestUrl()
const worker = fileURLToPath(new URL('./__fixtures__/kill-worker.ts', import.meta.url))

interface Ended {
  readonly signal: NodeJS.Signals | null
  readonly outcomes: readonly string[]
}

function runWorker(args: readonly string[]): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve({ signal, outcomes: [] })
      else if (code === 0) resolve({ signal, outcomes: JSON.parse(stdout) as string[] })
      else reject(new Error(`worker ended with ${code ?? signal}: ${stderr}`))
    })
  })
}

// Three calls, each a reservation, a save before the tool and a save after it: nine writes.
const KILL_POINTS = [
  ...Array.from({ length: 9 }, (_, index) => [
    `write:${index + 1}:before`,
    `write:${index + 1}:after`,
  ]).flat(),
  'tool:a',
  'tool:b',
  'tool:c',
]

const done = 'step_already_done'
const interrupted = 'interrupted_call'
const exhausted = 'budget_exhausted'
/**
 * What the resumed process gets, by kill point. A reservation made before the kill stays
 * counted (the call may have started), so the last step may find the shared budget of 3 used;
 * a step whose save before the tool was written is reported as interrupted, never run again.
 */
const RESUMED: Record<string, readonly string[]> = {
  'write:1:before': ['a:ran', 'b:ran', 'c:ran'],
  'write:1:after': ['a:ran', 'b:ran', `c:${exhausted}`],
  'write:2:before': ['a:ran', 'b:ran', `c:${exhausted}`],
  'write:2:after': [`a:${interrupted}`],
  'write:3:before': [`a:${interrupted}`],
  'write:3:after': [`a:${done}`, 'b:ran', 'c:ran'],
  'write:4:before': [`a:${done}`, 'b:ran', 'c:ran'],
  'write:4:after': [`a:${done}`, 'b:ran', `c:${exhausted}`],
  'write:5:before': [`a:${done}`, 'b:ran', `c:${exhausted}`],
  'write:5:after': [`a:${done}`, `b:${interrupted}`],
  'write:6:before': [`a:${done}`, `b:${interrupted}`],
  'write:6:after': [`a:${done}`, `b:${done}`, 'c:ran'],
  'write:7:before': [`a:${done}`, `b:${done}`, 'c:ran'],
  'write:7:after': [`a:${done}`, `b:${done}`, `c:${exhausted}`],
  'write:8:before': [`a:${done}`, `b:${done}`, `c:${exhausted}`],
  'write:8:after': [`a:${done}`, `b:${done}`, `c:${interrupted}`],
  'write:9:before': [`a:${done}`, `b:${done}`, `c:${interrupted}`],
  'write:9:after': [`a:${done}`, `b:${done}`, `c:${done}`],
  'tool:a': [`a:${interrupted}`],
  'tool:b': [`a:${done}`, `b:${interrupted}`],
  'tool:c': [`a:${done}`, `b:${done}`, `c:${interrupted}`],
}

describe.skipIf(url === undefined)('a guarded run killed at every point', () => {
  let dir: string
  const prefix = uniquePrefix()

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plan-kill-'))
  })

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('should never start a non-idempotent step twice nor lose the count of one that started', {
    timeout: 600_000,
  }, async () => {
    const admin = new pg.Client({ connectionString: url as string })
    await admin.connect()
    const store = createPostgresGuardStore({ connectionString: url as string, tablePrefix: prefix })
    try {
      for (const killAt of KILL_POINTS) {
        const runDir = join(dir, killAt.replaceAll(':', '-'))
        await mkdir(runDir)
        const runId = randomUUID()
        const tenant = randomUUID()
        const args = [url as string, prefix, runId, runDir, tenant]
        const first = await runWorker([...args, killAt])
        expect(first.signal, killAt).toBe('SIGKILL')
        const second = await runWorker([...args, 'none'])
        const log = join(runDir, 'tools.log')
        const lines = existsSync(log) ? (await readFile(log, 'utf8')).trim().split('\n') : []
        const starts = lines.filter((line) => line.startsWith('start '))
        // No step's tool started twice, across the killed process and the resumed one.
        expect(new Set(starts).size, killAt).toBe(starts.length)
        // Every start was counted: in the run's saved state and in the shared budget.
        const saved = (await store.load(runId))?.state as PlanGuardState | undefined
        expect(saved?.calls ?? 0, killAt).toBeGreaterThanOrEqual(starts.length)
        const used = await admin.query(
          `SELECT coalesce(sum(used), 0) AS used FROM ${prefix}shared_budgets WHERE key = $1`,
          [tenant],
        )
        expect(Number(used.rows[0]?.used), killAt).toBeGreaterThanOrEqual(starts.length)
        expect(Number(used.rows[0]?.used), killAt).toBeLessThanOrEqual(3)
        expect(second.outcomes, killAt).toEqual(RESUMED[killAt])
      }
    } finally {
      await admin.end()
      await store.close()
    }
  })
})
