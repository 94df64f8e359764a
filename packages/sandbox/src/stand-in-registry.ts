import { createHash } from 'node:crypto'
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { posix } from 'node:path'
import { errorCode, isWithin } from '@plan/core/adapter'
import { z } from 'zod'
import { SandboxError } from './sandbox-error.js'
import type { StandIn } from './stand-ins.js'

/** A stand-in this package put on the disk, as it was made. */
export interface StandInRecord extends StandIn {
  readonly device: number
  readonly inode: number
}

const RECORD = 'record.json'
const LEASES = 'leases'
const LOCK = 'lock'

/**
 * The registry of the stand-ins in place for every sandbox of this user on this host: one
 * folder per stand-in with its record and one empty file per command that holds it, and one
 * file per command with the processes that keep it alive (the agent's, then bubblewrap's).
 */
export class StandInRegistry {
  readonly folder: string

  constructor(folder = posix.join(tmpdir(), `plan-sandbox-${process.getuid?.() ?? 'user'}`)) {
    this.folder = folder
  }

  private entryOf(path: string): string {
    return posix.join(this.folder, createHash('sha256').update(path).digest('hex').slice(0, 32))
  }

  /**
   * Creates the registry folder, private to this user, or refuses one that is not, or one a
   * command could write (inside a workspace root): its records say what the sandbox removes.
   */
  open(writable: readonly string[] = []): void {
    const refuse = (message: string, hint: string): never => {
      throw new SandboxError({ code: 'sandbox_failed', message, path: [], hint })
    }
    if (writable.some((root) => isWithin(root, this.folder)))
      refuse(
        `The stand-in registry ${this.folder} is inside the workspace, where a command could write it.`,
        'Set the TMPDIR of the agent to a folder outside every workspace root (the default /tmp is).',
      )
    mkdirSync(this.folder, { recursive: true, mode: 0o700 })
    const stats = lstatSync(this.folder)
    const uid = process.getuid?.()
    const own = uid === undefined || stats.uid === uid
    if (!stats.isDirectory() || !own || (stats.mode & 0o22) !== 0)
      refuse(
        `The stand-in registry ${this.folder} is not a folder of this user that only it can write.`,
        `Remove ${this.folder}; the sandbox creates it again.`,
      )
    mkdirSync(posix.join(this.folder, LEASES), { recursive: true, mode: 0o700 })
  }

  /** Runs `work` while holding the registry's lock (a file made with O_EXCL, held by a live pid). */
  locked<T>(work: () => T): T {
    const lock = posix.join(this.folder, LOCK)
    const pause = new Int32Array(new SharedArrayBuffer(4))
    for (let attempt = 0; attempt < 5000; attempt += 1) {
      let descriptor: number
      try {
        descriptor = openSync(lock, 'wx', 0o600)
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error
        if (!holderAlive(lock)) rmSync(lock, { force: true })
        else Atomics.wait(pause, 0, 0, 2)
        continue
      }
      writeSync(descriptor, String(process.pid))
      closeSync(descriptor)
      try {
        return work()
      } finally {
        rmSync(lock, { force: true })
      }
    }
    throw new SandboxError({
      code: 'sandbox_failed',
      message: `The stand-in registry ${this.folder} stayed locked by another process.`,
      path: [],
      hint: `If no sandbox is starting or ending, remove ${lock}.`,
    })
  }

  /** Every stand-in recorded, by path. */
  records(): Map<string, StandInRecord> {
    const found = new Map<string, StandInRecord>()
    let entries: string[]
    try {
      entries = readdirSync(this.folder)
    } catch {
      return found
    }
    for (const entry of entries) {
      if (entry === LEASES || entry === LOCK) continue
      const record = readRecord(posix.join(this.folder, entry, RECORD))
      if (record !== undefined) found.set(record.path, record)
    }
    return found
  }

  /** Records a stand-in just made, held by `lease`. */
  record(standIn: StandInRecord, lease: string): void {
    const entry = this.entryOf(standIn.path)
    mkdirSync(entry, { recursive: true, mode: 0o700 })
    writeFileSync(posix.join(entry, RECORD), JSON.stringify(standIn))
    this.hold(standIn.path, lease)
  }

  /** Marks the stand-in at `path` as held by `lease`. */
  hold(path: string, lease: string): void {
    writeFileSync(posix.join(this.entryOf(path), `lease.${lease}`), '')
  }

  /** Writes the processes that keep `lease` alive. */
  writeLease(lease: string, pids: readonly number[]): void {
    writeFileSync(posix.join(this.folder, LEASES, lease), pids.join(' '))
  }

  /** Drops `lease` from every stand-in it held. */
  dropLease(lease: string, paths: readonly string[]): void {
    for (const path of paths)
      rmSync(posix.join(this.entryOf(path), `lease.${lease}`), { force: true })
    rmSync(posix.join(this.folder, LEASES, lease), { force: true })
  }

  /**
   * Removes the stand-ins that no live command holds any more (their own processes all gone),
   * each only while it is still the one made (same inode, same content, a folder still empty),
   * and forgets them. Returns the paths removed.
   */
  sweep(paths?: readonly string[]): string[] {
    const removed: string[] = []
    for (const record of this.records().values()) {
      if (paths !== undefined && !paths.includes(record.path)) continue
      const entry = this.entryOf(record.path)
      const leases = readdirSync(entry).filter((name) => name.startsWith('lease.'))
      const live = leases.filter((name) => this.leaseAlive(name.slice('lease.'.length)))
      for (const name of leases) if (!live.includes(name)) rmSync(posix.join(entry, name))
      if (live.length > 0) continue
      if (removePristine(record)) removed.push(record.path)
      rmSync(entry, { recursive: true, force: true })
    }
    return removed
  }

  private leaseAlive(lease: string): boolean {
    let pids: number[]
    try {
      pids = readFileSync(posix.join(this.folder, LEASES, lease), 'utf8')
        .split(' ')
        .map(Number)
    } catch {
      return false
    }
    const alive = pids.some(processAlive)
    if (!alive) rmSync(posix.join(this.folder, LEASES, lease), { force: true })
    return alive
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errorCode(error) === 'EPERM'
  }
}

function holderAlive(lock: string): boolean {
  try {
    return processAlive(Number(readFileSync(lock, 'utf8')))
  } catch {
    // Made but not yet written: its maker holds it.
    return true
  }
}

const recordSchema = z.object({
  path: z.string(),
  kind: z.enum(['file', 'folder']),
  content: z.string(),
  device: z.number(),
  inode: z.number(),
})

function readRecord(file: string): StandInRecord | undefined {
  try {
    const parsed = recordSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** Whether `path` is, right now, the stand-in `record` describes (same inode and type). */
export function isRecorded(record: StandInRecord): boolean {
  try {
    const stats = lstatSync(record.path)
    const kindMatches = record.kind === 'folder' ? stats.isDirectory() : stats.isFile()
    return kindMatches && stats.dev === record.device && stats.ino === record.inode
  } catch {
    return false
  }
}

/** Removes a stand-in that nobody changed; leaves anything else where it is. */
function removePristine(record: StandInRecord): boolean {
  if (!isRecorded(record)) return false
  try {
    if (record.kind === 'folder') {
      if (readdirSync(record.path).length > 0) return false
      rmdirSync(record.path)
      return true
    }
    if (readFileSync(record.path, 'utf8') !== record.content) return false
    unlinkSync(record.path)
    return true
  } catch {
    return false
  }
}
