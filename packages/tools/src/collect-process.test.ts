import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { collectProcess } from './collect-process.js'

const startSleep = () =>
  spawn('sleep', ['30'], { detached: true, stdio: ['pipe', 'pipe', 'pipe'], shell: false })

describe('collectProcess', () => {
  it.skipIf(process.platform === 'win32')(
    'should kill the process group on abort',
    async () => {
      const outcome = await collectProcess(startSleep(), {
        timeoutMs: 60_000,
        maxOutputBytes: 1000,
        signal: AbortSignal.abort(),
      })
      expect(outcome).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false })
    },
    30_000,
  )

  it.skipIf(process.platform === 'win32')(
    'should end the process with the given kill instead of killing its group',
    async () => {
      const child = startSleep()
      const calls: string[] = []
      const outcome = await collectProcess(child, {
        timeoutMs: 60_000,
        maxOutputBytes: 1000,
        signal: AbortSignal.abort(),
        kill: () => {
          calls.push('kill')
          child.kill('SIGTERM')
        },
      })
      expect(calls).toEqual(['kill'])
      expect(outcome).toMatchObject({ exitCode: null, signal: 'SIGTERM' })
    },
    30_000,
  )
})
