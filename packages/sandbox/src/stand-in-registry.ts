import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
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

/** One command's hold: the processes whose life keeps it, and the stand-ins it holds. */
export interface StandInHold {
  readonly pids: readonly number[]
  readonly paths: readonly string[]
}

const RECORDS = 'stand-ins.json'
const LEASES = 'leases'
const LOCK = 'lock'

const recordsSchema = z.array(
  z.object({
    path: z.string(),
    kind: z.enum(['file', 'folder']),
    content: z.string(),
    device: z.number(),
    inode: z.number(),
  }),
)

const holdSchema = z.object({ pids: z.array(z.number()), paths: z.array(z.string()) })

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
}

/**
 * The registry of the stand-ins in place for every sandbox of this user on this host: one file
 * with the record of each stand-in, and one file per command with the processes that keep it
 * alive (the agent's, then bubblewrap's) and the stand-ins it holds. Read and written under an
 * `O_EXCL` lock file.
 */
export class StandInRegistry {
  readonly folder: string

  constructor(folder = posix.join(tmpdir(), `plan-sandbox-${process.getuid?.() ?? 'user'}`)) {
    this.folder = folder
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
    const parsed = recordsSchema.safeParse(readJson(posix.join(this.folder, RECORDS)))
    return new Map(parsed.success ? parsed.data.map((record) => [record.path, record]) : [])
  }

  /** Replaces the records (a new file renamed over the old, so no reader sees half of one). */
  writeRecords(records: ReadonlyMap<string, StandInRecord>): void {
    const file = posix.join(this.folder, RECORDS)
    writeFileSync(`${file}.new`, JSON.stringify([...records.values()]))
    renameSync(`${file}.new`, file)
  }

  /** Writes the hold of the command `lease`. */
  writeLease(lease: string, hold: StandInHold): void {
    writeFileSync(posix.join(this.folder, LEASES, lease), JSON.stringify(hold))
  }

  /** Forgets the hold of the command `lease`. */
  dropLease(lease: string): void {
    rmSync(posix.join(this.folder, LEASES, lease), { force: true })
  }

  /** The holds of commands with a process still alive; forgets the others. */
  liveHolds(): StandInHold[] {
    const folder = posix.join(this.folder, LEASES)
    const holds: StandInHold[] = []
    for (const lease of readdirSync(folder)) {
      const parsed = holdSchema.safeParse(readJson(posix.join(folder, lease)))
      if (parsed.success && parsed.data.pids.some(processAlive)) holds.push(parsed.data)
      else rmSync(posix.join(folder, lease), { force: true })
    }
    return holds
  }

  /**
   * Removes the stand-ins that no live command holds (their own processes all gone), each only
   * while it is still the one made (same inode, same content, a folder still empty), and
   * forgets them. Returns the records left.
   */
  sweep(): Map<string, StandInRecord> {
    const held = new Set(this.liveHolds().flatMap((hold) => hold.paths))
    const records = this.records()
    const before = records.size
    for (const [path, record] of records) {
      if (held.has(path)) continue
      removePristine(record)
      records.delete(path)
    }
    if (records.size !== before) this.writeRecords(records)
    return records
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
