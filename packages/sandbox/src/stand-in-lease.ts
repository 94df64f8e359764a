import { randomBytes } from 'node:crypto'
import { closeSync, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs'
import { isWithin } from '@plan/core/adapter'
import type { SandboxConfig } from './sandbox-config.js'
import { isRecorded, type StandInRecord, StandInRegistry } from './stand-in-registry.js'
import { planStandIns, type StandIn } from './stand-ins.js'
import type { WorkspaceScan } from './workspace-scan.js'

/** The stand-ins one command holds from before it starts until all of its processes are gone. */
export interface StandInLease {
  /** Every stand-in in place in the workspace: the command's own and those it shares. */
  readonly paths: readonly string[]
  /** Adds a process whose life keeps the lease (bubblewrap's, once started). */
  attach(pid: number): void
  /** Lets the stand-ins go: removes each one no other live command holds. Runs once. */
  release(): void
}

/** Puts a stand-in on the disk; undefined when the name appeared meanwhile or cannot be made. */
function make(standIn: StandIn): StandInRecord | undefined {
  try {
    if (standIn.kind === 'folder') mkdirSync(standIn.path, { mode: 0o555 })
    else {
      const descriptor = openSync(standIn.path, 'wx', 0o444)
      try {
        writeSync(descriptor, standIn.content)
      } finally {
        closeSync(descriptor)
      }
    }
    const stats = lstatSync(standIn.path)
    return { ...standIn, device: stats.dev, inode: stats.ino }
  } catch {
    return undefined
  }
}

/** The stand-ins in place right now, by path: recorded and still the ones made. */
export function liveStandIns(registry = new StandInRegistry()): Set<string> {
  const live = new Set<string>()
  for (const record of registry.records().values()) if (isRecorded(record)) live.add(record.path)
  return live
}

let leases = 0

/**
 * Takes the stand-ins a command needs (see {@link planStandIns}): under the registry's lock,
 * forgets those of commands whose processes are all gone (removing what they left), makes the
 * missing ones, and holds every stand-in in the workspace, so that no other command removes one
 * while this one runs: removing a mount point on the host unmounts it inside the sandbox.
 */
export function leaseStandIns(
  config: SandboxConfig,
  scan: WorkspaceScan,
  registry = new StandInRegistry(),
): StandInLease {
  leases += 1
  const lease = `${process.pid}-${leases}-${randomBytes(4).toString('hex')}`
  const pids = [process.pid]
  const inWorkspace = (path: string) => config.writable.some((root) => isWithin(root, path))
  registry.open(config.writable)
  const paths = registry.locked(() => {
    const records = registry.sweep()
    const live = new Set([...records.values()].filter(isRecorded).map((record) => record.path))
    const before = records.size
    for (const standIn of planStandIns(config, scan, (path) => live.has(path))) {
      if (live.has(standIn.path)) continue
      const made = make(standIn)
      if (made === undefined) continue
      records.set(made.path, made)
      live.add(made.path)
    }
    if (records.size !== before) registry.writeRecords(records)
    const held = [...live].filter(inWorkspace)
    registry.writeLease(lease, { pids, paths: held })
    return held
  })
  let released = false
  return {
    paths,
    attach(pid) {
      pids.push(pid)
      try {
        registry.locked(() => registry.writeLease(lease, { pids, paths }))
      } catch {
        // The agent's own pid holds the stand-ins all the same.
      }
    },
    release() {
      if (released) return
      released = true
      registry.locked(() => {
        registry.dropLease(lease)
        registry.sweep()
      })
    },
  }
}
