/** Starts a timer that calls `callback` after `ms`; the function it returns cancels it. */
export type StartTimer = (callback: () => void, ms: number) => () => void

/** A `setTimeout` that does not keep the Node process alive. */
export const startUnrefTimer: StartTimer = (callback, ms) => {
  const timer = setTimeout(callback, ms)
  timer.unref()
  return () => clearTimeout(timer)
}
