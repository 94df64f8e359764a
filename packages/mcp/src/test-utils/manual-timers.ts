import type { StartTimer } from '../proxy/idle-timer.js'

/** Timers that fire only when the test moves their clock on. */
export interface ManualTimers {
  readonly start: StartTimer
  /** Timers started and neither fired nor cancelled. */
  readonly pending: number
  /** Moves the clock on by `ms`, firing every timer due by then, earliest first. */
  advance(ms: number): void
}

export function manualTimers(): ManualTimers {
  let now = 0
  const timers = new Set<{ readonly at: number; readonly callback: () => void }>()
  return {
    start: (callback, ms) => {
      const timer = { at: now + ms, callback }
      timers.add(timer)
      return () => timers.delete(timer)
    },
    get pending() {
      return timers.size
    },
    advance(ms) {
      now += ms
      const due = [...timers].filter((timer) => timer.at <= now).sort((a, b) => a.at - b.at)
      for (const timer of due) {
        if (!timers.delete(timer)) continue
        timer.callback()
      }
    },
  }
}
