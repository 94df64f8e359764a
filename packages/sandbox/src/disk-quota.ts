import { lstatSync, statfsSync } from 'node:fs'

/** Watches how many bytes the file systems of the workspace lose while a sandbox runs. */
export interface DiskWatch {
  /** Stops watching; whether the quota was passed (and `onPassed` called). */
  stop(): boolean
}

// How often free space is read: one statfs per file system, a few microseconds each.
const INTERVAL_MS = 100

function available(paths: readonly string[]): number[] {
  return paths.map((path) => {
    try {
      const stats = statfsSync(path)
      return stats.bavail * stats.bsize
    } catch {
      return Number.NaN
    }
  })
}

/**
 * Reads the free space of each file system that holds a workspace root at the start and every 100 ms, and
 * calls `onPassed` once when the space used since the start, summed over them, passes
 * `maxBytes`. Free space is the whole file system's: the host's own writes meanwhile count too.
 */
export function watchDisk(
  roots: readonly string[],
  maxBytes: number,
  onPassed: () => void,
): DiskWatch {
  const devices = new Set<number>()
  const distinct = roots.filter((root) => {
    try {
      const device = lstatSync(root).dev
      if (devices.has(device)) return false
      devices.add(device)
      return true
    } catch {
      return false
    }
  })
  const start = available(distinct)
  let passed = false
  const check = () => {
    if (passed) return
    const now = available(distinct)
    let used = 0
    for (const [index, bytes] of now.entries())
      used += Math.max(0, (start[index] ?? bytes) - bytes) || 0
    if (used <= maxBytes) return
    passed = true
    onPassed()
  }
  const timer = setInterval(check, INTERVAL_MS)
  timer.unref()
  return {
    stop() {
      clearInterval(timer)
      check()
      return passed
    },
  }
}
