import type { CommandViolation } from '@plan/tools'
import { LIMIT_NAMES, type LimitName, type SandboxLimits } from './sandbox-limits.js'

// bubblewrap exits with 128 + the signal that killed the command.
const EXIT_CODES: Partial<Record<number, readonly [LimitName, string]>> = {
  152: ['cpuSeconds', 'SIGXCPU'],
  153: ['fileSizeBytes', 'SIGXFSZ'],
}

// What programs and shells print when a limit stops them (strerror texts, shell reports).
const REPORTS: Readonly<Record<LimitName, RegExp>> = {
  cpuSeconds: /CPU time limit exceeded/i,
  fileSizeBytes: /File size limit exceeded|File too large|EFBIG/i,
  openFiles: /Too many open files|EMFILE/i,
  processes:
    /Cannot fork|fork: (?:retry: )?Resource temporarily unavailable|fork system call failed/i,
  memoryBytes: /Cannot allocate memory|ENOMEM|MemoryError|out of memory/i,
  tmpBytes: /No space left on device|ENOSPC/i,
  // Reported by the disk watcher, not read from stderr.
  diskBytes: /(?!)/,
}

const UNITS: Readonly<Record<LimitName, string>> = {
  cpuSeconds: 's of CPU time per process',
  fileSizeBytes: 'bytes per file',
  openFiles: 'open files per process',
  processes: 'processes',
  memoryBytes: 'bytes of memory per process',
  tmpBytes: 'bytes in /tmp',
  diskBytes: 'bytes added to the workspace',
}

/** One `limit` violation: `name` stopped the command, and how it shows. */
export function limitViolation(
  name: LimitName,
  limits: SandboxLimits,
  how: string,
): CommandViolation {
  return {
    kind: 'limit',
    message: `The ${name} limit (${limits[name]} ${UNITS[name]}) stopped the command: ${how.trim().slice(0, 400)}`,
    target: name,
  }
}

/**
 * The limits a command reached, one entry each, as far as it shows: killed by SIGXCPU or
 * SIGXFSZ (bubblewrap's exit code 152 or 153), or an error a program printed on stderr for a
 * limit that was set (best effort, like the other stderr reports).
 */
export function limitViolations(
  exitCode: number | null,
  stderr: string,
  limits: SandboxLimits,
): CommandViolation[] {
  const found = new Map<LimitName, CommandViolation>()
  const killed = exitCode === null ? undefined : EXIT_CODES[exitCode]
  if (killed !== undefined && limits[killed[0]] !== undefined)
    found.set(killed[0], limitViolation(killed[0], limits, `killed by ${killed[1]}`))
  for (const line of stderr.split('\n')) {
    for (const name of LIMIT_NAMES) {
      if (found.has(name) || limits[name] === undefined || !REPORTS[name].test(line)) continue
      found.set(name, limitViolation(name, limits, line))
    }
    if (found.size === LIMIT_NAMES.length) break
  }
  return [...found.values()]
}
