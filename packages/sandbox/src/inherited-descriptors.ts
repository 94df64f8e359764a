import { closeSync, openSync, readdirSync, readSync } from 'node:fs'

// O_CLOEXEC as the `flags:` line of /proc/<pid>/fdinfo/<fd> shows it (octal).
const CLOSE_ON_EXEC = 0o2000000

// The `pos:` and `flags:` lines come first: 64 bytes hold them.
const info = Buffer.alloc(64)

/**
 * The descriptors of this process numbered `lowest` or more, read from `/proc/self/fd`, or
 * undefined when it cannot be read. The listing's own descriptor is among them, already closed.
 */
export function openDescriptors(lowest: number): number[] | undefined {
  let names: string[]
  try {
    names = readdirSync('/proc/self/fd')
  } catch {
    return undefined
  }
  const found: number[] = []
  for (const name of names) {
    const fd = Number(name)
    if (fd >= lowest) found.push(fd)
  }
  return found
}

/**
 * Whether a program this process starts would not inherit descriptor `fd`: it is marked
 * close-on-exec, or it is closed. A descriptor whose flags cannot be read counts as inherited.
 */
export function closesOnExec(fd: number): boolean {
  let handle: number
  try {
    handle = openSync(`/proc/self/fdinfo/${fd}`, 'r')
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
  }
  let length: number
  try {
    length = readSync(handle, info, 0, info.length, 0)
  } catch {
    return false
  } finally {
    closeSync(handle)
  }
  const flags = /^flags:\s*([0-7]+)$/m.exec(info.toString('latin1', 0, length))?.[1]
  return flags !== undefined && (Number.parseInt(flags, 8) & CLOSE_ON_EXEC) !== 0
}
