import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { postgresTestUrl, uniquePrefix } from './test-utils/postgres-url.js'

const url = postgresTestUrl()
const worker = fileURLToPath(new URL('./__fixtures__/duplicate-worker.ts', import.meta.url))

function runWorker(args: readonly string[]): Promise<string[]> {
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
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(stdout) as string[])
      else reject(new Error(`worker ended with ${code}: ${stderr}`))
    })
  })
}

async function waitFor(path: string): Promise<void> {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 20))
}

describe.skipIf(url === undefined)('two workers resuming one run', () => {
  let dir: string

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plan-duplicate-'))
  })

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  async function starts(): Promise<string[]> {
    const log = join(dir, 'starts.log')
    return existsSync(log) ? (await readFile(log, 'utf8')).trim().split('\n') : []
  }

  it('should start each step once when both load the run at the same moment', {
    timeout: 60_000,
  }, async () => {
    const args = [url as string, uniquePrefix(), randomUUID(), dir]
    const first = runWorker([...args, 'first', ''])
    const second = runWorker([...args, 'second', ''])
    await waitFor(join(dir, 'loaded-first'))
    await waitFor(join(dir, 'loaded-second'))
    await Promise.all([writeFile(join(dir, 'go-first'), ''), writeFile(join(dir, 'go-second'), '')])
    const outcomes = await Promise.all([first, second])
    const started = (await starts()).map((line) => line.split(' ')[0])
    expect(started).toEqual(['a', 'b', 'c', 'd'])
    // One worker ran the run; the other was refused before its first tool started.
    const refused = outcomes.flat().filter((outcome) => !outcome.endsWith(':ran'))
    expect(refused).toHaveLength(1)
    expect(refused[0]).toMatch(/:store_failed$/)
  })

  it('should stop a stale worker once another resumed the run after it', {
    timeout: 60_000,
  }, async () => {
    const args = [url as string, uniquePrefix(), randomUUID(), dir]
    await writeFile(join(dir, 'go-stale'), '')
    const stale = runWorker([...args, 'stale', 'a'])
    await waitFor(join(dir, 'paused-stale'))
    await writeFile(join(dir, 'go-fresh'), '')
    const fresh = await runWorker([...args, 'fresh', ''])
    await writeFile(join(dir, 'resume-stale'), '')
    expect(await stale).toEqual(['a:ran', 'b:store_failed'])
    expect(fresh).toEqual(['a:step_already_done', 'b:ran', 'c:ran', 'd:ran'])
    expect(await starts()).toEqual(['a stale', 'b fresh', 'c fresh', 'd fresh'])
  })
})
