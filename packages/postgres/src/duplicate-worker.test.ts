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

  /** Two workers load the run, wait for each other, then go at once; their outcomes. */
  async function atBarrier(args: readonly string[]): Promise<string[][]> {
    const first = runWorker([...args, 'first', ''])
    const second = runWorker([...args, 'second', ''])
    await waitFor(join(dir, 'loaded-first'))
    await waitFor(join(dir, 'loaded-second'))
    await Promise.all([writeFile(join(dir, 'go-first'), ''), writeFile(join(dir, 'go-second'), '')])
    return Promise.all([first, second])
  }

  it('should start each step once when both load the run at the same moment', {
    timeout: 120_000,
  }, async () => {
    // Repeated: which worker wins varies; that one of them starts each step does not.
    for (let trial = 0; trial < 4; trial += 1) {
      await rm(join(dir, 'starts.log'), { force: true })
      for (const name of ['first', 'second'])
        for (const file of [`loaded-${name}`, `go-${name}`])
          await rm(join(dir, file), { force: true })
      const outcomes = await atBarrier([url as string, uniquePrefix(), randomUUID(), dir])
      const started = (await starts()).map((line) => line.split(' ')[0])
      expect(started, `trial ${trial}`).toEqual(['a', 'b', 'c', 'd'])
      // One worker ran the run; the other was refused before its first tool started.
      const refused = outcomes.flat().filter((outcome) => !outcome.endsWith(':ran'))
      expect(refused, `trial ${trial}`).toEqual([expect.stringMatching(/^a:store_failed$/)])
    }
  })

  it('should start each step once when both resume a run that has a step done', {
    timeout: 120_000,
  }, async () => {
    const args = [url as string, uniquePrefix(), randomUUID(), dir]
    await writeFile(join(dir, 'go-seed'), '')
    expect(await runWorker([...args, 'seed', 'stop:a'])).toEqual(['a:ran'])
    const outcomes = await atBarrier(args)
    const lines = await starts()
    expect(lines[0]).toBe('a seed')
    const runner = lines[1]?.split(' ')[1]
    expect(lines).toEqual(['a seed', `b ${runner}`, `c ${runner}`, `d ${runner}`])
    const [ran, refused] = runner === 'first' ? outcomes : [...outcomes].reverse()
    expect(ran).toEqual(['a:step_already_done', 'b:ran', 'c:ran', 'd:ran'])
    expect(refused).toEqual(['a:step_already_done', 'b:store_failed'])
  })

  it('should never start a step twice when a worker resumes while the other runs a tool', {
    timeout: 60_000,
  }, async () => {
    const args = [url as string, uniquePrefix(), randomUUID(), dir]
    await writeFile(join(dir, 'go-stale'), '')
    const stale = runWorker([...args, 'stale', 'in:b'])
    await waitFor(join(dir, 'paused-stale'))
    await writeFile(join(dir, 'go-fresh'), '')
    // The step the other worker is running was counted before it started: interrupted here.
    expect(await runWorker([...args, 'fresh', ''])).toEqual([
      'a:step_already_done',
      'b:interrupted_call',
    ])
    await writeFile(join(dir, 'resume-stale'), '')
    // The denied worker saved nothing, so the run is still the first one's to finish.
    expect(await stale).toEqual(['a:ran', 'b:ran', 'c:ran', 'd:ran'])
    expect(await starts()).toEqual(['a stale', 'b stale', 'c stale', 'd stale'])
  })

  it('should stop a stale worker once another resumed the run after it', {
    timeout: 60_000,
  }, async () => {
    const args = [url as string, uniquePrefix(), randomUUID(), dir]
    await writeFile(join(dir, 'go-stale'), '')
    const stale = runWorker([...args, 'stale', 'after:a'])
    await waitFor(join(dir, 'paused-stale'))
    await writeFile(join(dir, 'go-fresh'), '')
    const fresh = await runWorker([...args, 'fresh', ''])
    await writeFile(join(dir, 'resume-stale'), '')
    expect(await stale).toEqual(['a:ran', 'b:store_failed'])
    expect(fresh).toEqual(['a:step_already_done', 'b:ran', 'c:ran', 'd:ran'])
    expect(await starts()).toEqual(['a stale', 'b fresh', 'c fresh', 'd fresh'])
  })
})
