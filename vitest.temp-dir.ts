import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Points `TMPDIR` of the test workers at a fresh folder and removes it when the run ends, so a
 * test that fails or times out before its own clean-up leaves nothing behind.
 */
export default function setup(): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'plan-test-'))
  process.env.TMPDIR = folder
  return () => rmSync(folder, { recursive: true, force: true })
}
