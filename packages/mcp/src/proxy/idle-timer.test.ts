import { describe, expect, it } from 'vitest'
import { startUnrefTimer } from './idle-timer.js'

const timeouts = () =>
  process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length

describe('startUnrefTimer', () => {
  it('should start a timer that does not keep the process alive', () => {
    const before = timeouts()
    const cancel = startUnrefTimer(() => {}, 60_000)
    expect(timeouts()).toBe(before)
    cancel()
  })

  it('should call back after the delay unless cancelled first', async () => {
    const fired: string[] = []
    const cancel = startUnrefTimer(() => fired.push('cancelled'), 0)
    cancel()
    // Timers fire in the order they are due: the cancelled one would have fired before this.
    await new Promise<void>((resolve) => startUnrefTimer(resolve, 5))
    startUnrefTimer(() => fired.push('kept'), 0)
    await new Promise<void>((resolve) => startUnrefTimer(resolve, 5))
    expect(fired).toEqual(['kept'])
  })
})
