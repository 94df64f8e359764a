import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { chmod, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { checkSandbox, createSandbox } from './create-sandbox.js'
import { childrenOf, endSandbox, scanForChildren } from './end-sandbox.js'
import {
  createSandboxFixture,
  describeSandbox,
  type SandboxFixture,
} from './test-utils/sandbox-fixture.js'

const TIMEOUT = 60_000

/** The processes with `marker` as one of their arguments, with those arguments. */
function processesWith(marker: string): Array<{ pid: number; argv: string[] }> {
  const found: Array<{ pid: number; argv: string[] }> = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
      if (argv.includes(marker)) found.push({ pid: Number(entry), argv })
    } catch {
      // Exited while listed.
    }
  }
  return found
}

function killAllWith(marker: string): void {
  for (const { pid } of processesWith(marker)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
}

/** Waits, without a deadline of its own, until `ready` holds. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 5))
}

const closed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    child.on('close', () => resolve())
  })

// A command that never ends by itself; `marker` names its shell and the bubblewrap running it.
const endless = (marker: string) => ['sh', '-c', 'sleep infinity; :', marker]

describe('childrenOf', () => {
  it.skipIf(process.platform !== 'linux')(
    'should list the direct children of a process, alike from its children files and from a scan',
    async () => {
      const parent = spawn('sh', ['-c', 'sleep 30 & sleep 30 & wait'], { stdio: 'ignore' })
      const pid = parent.pid as number
      try {
        await until(() => childrenOf(pid).length === 2)
        expect(scanForChildren(pid).sort()).toEqual(childrenOf(pid).sort())
      } finally {
        for (const child of childrenOf(pid)) process.kill(child, 'SIGKILL')
        parent.kill('SIGKILL')
      }
    },
    TIMEOUT,
  )

  it.skipIf(process.platform !== 'linux')('should list none for a process that is gone', () => {
    const pid = Number(execFileSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).trim())
    expect(childrenOf(pid)).toEqual([])
  })
})

describe('endSandbox', () => {
  it.skipIf(process.platform !== 'linux')(
    'should kill a child that left the process group, which killing the group alone misses',
    async () => {
      const marker = `1000.${process.pid}${Math.floor(Math.random() * 1e6)}`
      onTestFinished(() => killAllWith(marker))
      const child = spawn('sh', ['-c', `setsid sleep ${marker} & wait`], {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      await until(() => processesWith(marker).some(({ argv }) => argv[0] === 'sleep'))
      endSandbox(child)
      await closed(child)
      expect(child.signalCode).toBe('SIGKILL')
      expect(processesWith(marker)).toEqual([])
    },
    TIMEOUT,
  )
})

describeSandbox('endSandbox', () => {
  let fixture: SandboxFixture
  let marker: string

  beforeEach(async () => {
    fixture = await createSandboxFixture()
    marker = `plan-end-sandbox-${process.pid}-${Math.random().toString(36).slice(2)}`
  })

  afterEach(async () => {
    killAllWith(marker)
    await fixture.cleanup()
  })

  /**
   * A sandbox whose setup stops where bubblewrap's sandbox process has left our process group
   * and started the command but not yet set its parent-death signal: it opens a lock file
   * (`--lock-file`) there, and a FIFO that no one writes to keeps it waiting.
   */
  async function heldSandbox() {
    const check = checkSandbox()
    if (!check.available) throw new Error(check.issue.message)
    const fifo = join(fixture.root, 'held')
    execFileSync('mkfifo', [fifo])
    const wrapper = join(fixture.base, 'bwrap-held')
    await writeFile(wrapper, `#!/bin/sh\nexec '${check.bwrap}' --lock-file '${fifo}' "$@"\n`)
    await chmod(wrapper, 0o755)
    const policy = { version: 1 as const, workspace: { roots: [fixture.root] }, tools: {} }
    return createSandbox(policy, { hostHome: fixture.home, bwrap: wrapper })
  }

  const commandStarted = () => processesWith(marker).some(({ argv }) => argv[0] === 'sh')

  it(
    'should end every process of a run aborted while bubblewrap is setting up',
    async () => {
      const sandbox = await heldSandbox()
      const controller = new AbortController()
      const run = sandbox.run(endless(marker), { signal: controller.signal })
      await until(commandStarted)
      controller.abort()
      expect(await run).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false })
      expect(processesWith(marker)).toEqual([])
    },
    TIMEOUT,
  )

  it(
    'should end every process of a spawned command killed while bubblewrap is setting up',
    async () => {
      const sandbox = await heldSandbox()
      const child = sandbox.spawn(endless(marker))
      await until(commandStarted)
      expect(child.kill(0)).toBe(true)
      expect(child.kill('SIGWINCH')).toBe(true)
      expect(commandStarted()).toBe(true)
      expect(child.kill()).toBe(true)
      await closed(child)
      expect(child.signalCode).toBe('SIGKILL')
      expect(processesWith(marker)).toEqual([])
      expect(child.kill()).toBe(false)
    },
    TIMEOUT,
  )

  it(
    "should send no signal once bubblewrap has ended, as its pid may be another process group's",
    async () => {
      const policy = { version: 1 as const, workspace: { roots: [fixture.root] }, tools: {} }
      const sandbox = createSandbox(policy, { hostHome: fixture.home })
      const child = sandbox.spawn(['true'])
      await closed(child)
      const kill = vi.spyOn(process, 'kill')
      onTestFinished(() => kill.mockRestore())
      expect(child.kill()).toBe(false)
      endSandbox(child)
      expect(kill).not.toHaveBeenCalled()
    },
    TIMEOUT,
  )

  it(
    'should settle every run and leave no process behind, whenever the abort lands',
    async () => {
      const policy = { version: 1 as const, workspace: { roots: [fixture.root] }, tools: {} }
      const sandbox = createSandbox(policy, { hostHome: fixture.home })
      const runs = 200
      const parallel = 4
      const results: Array<{ signal: string | null }> = []
      const worker = async (first: number) => {
        for (let index = first; index < runs; index += parallel) {
          const controller = new AbortController()
          const run = sandbox.run(endless(marker), { signal: controller.signal })
          // Spread over bubblewrap's start: before, during and after its setup.
          setTimeout(() => controller.abort(), index % 41)
          results.push(await run)
        }
      }
      await Promise.all(Array.from({ length: parallel }, (_, first) => worker(first)))
      expect(results).toHaveLength(runs)
      expect(processesWith(marker)).toEqual([])
    },
    TIMEOUT,
  )
})
