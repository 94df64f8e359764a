/** The longest delay a Node timer keeps (about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** Starts a timer that calls `callback` after `ms`; the function it returns cancels it. */
export type StartTimer = (callback: () => void, ms: number) => () => void

/** A `setTimeout` that does not keep the Node process alive. */
export const startUnrefTimer: StartTimer = (callback, ms) => {
  const timer = setTimeout(callback, ms)
  timer.unref()
  return () => clearTimeout(timer)
}
