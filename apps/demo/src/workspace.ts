import { rmSync } from 'node:fs'
import { cp, mkdir, mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** A throwaway copy of the fixture project, and a folder for the reports beside it. */
export interface DemoWorkspace {
  /** The temporary folder holding both. */
  readonly base: string
  /** The project the agents work on: the only workspace root of the policy. */
  readonly root: string
  /** Where each scenario's report and Mermaid picture are written. */
  readonly reports: string
  /** A fresh copy of the fixture project, for a scenario that must start clean. */
  reset(): Promise<void>
  remove(): Promise<void>
}

const fixture = fileURLToPath(new URL('../fixture/', import.meta.url))

/** Folders made by {@link createDemoWorkspace} and not removed yet. */
const liveFolders = new Set<string>()

/** Removes every demo folder still on disk; for a run stopped by a signal. */
export function removeDemoWorkspacesSync(): void {
  for (const folder of liveFolders) rmSync(folder, { recursive: true, force: true })
  liveFolders.clear()
}

/** Copies the fixture project into a new temporary folder. */
export async function createDemoWorkspace(): Promise<DemoWorkspace> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'plan-demo-')))
  liveFolders.add(base)
  const root = join(base, 'workspace')
  const reports = join(base, 'reports')
  await mkdir(reports)
  const reset = async () => {
    await rm(root, { recursive: true, force: true })
    await cp(fixture, root, { recursive: true })
  }
  await reset()
  const remove = async () => {
    await rm(base, { recursive: true, force: true })
    liveFolders.delete(base)
  }
  return { base, root, reports, reset, remove }
}
