import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bubblewrapFeatures } from './bubblewrap-features.js'

describe('bubblewrapFeatures', () => {
  let folder: string

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'plan-bwrap-features-'))
  })

  afterEach(async () => {
    await rm(folder, { recursive: true, force: true })
  })

  /** A stand-in bubblewrap whose `--help` prints `help`. */
  async function fakeBwrap(name: string, help: string): Promise<string> {
    const path = join(folder, name)
    await writeFile(path, `#!/bin/sh\ncat <<'HELP'\n${help}\nHELP\n`)
    await chmod(path, 0o755)
    return path
  }

  it('should find --disable-userns in the help of bubblewrap 0.8 and later', async () => {
    const bwrap = await fakeBwrap(
      'bwrap-0.8',
      '    --unshare-user               Create new user namespace\n    --disable-userns             Disable further use of user namespaces inside sandbox\n    --assert-userns-disabled     Fail unless further use of user namespace inside sandbox is disabled\n    --size BYTES                 Set size of next argument (only for --tmpfs)',
    )
    expect(bubblewrapFeatures(bwrap)).toEqual({
      disableUserns: true,
      tmpfsSize: true,
      jsonStatus: false,
    })
  })

  it('should not take a flag that is only mentioned, or an older help, for the feature', async () => {
    const older = await fakeBwrap(
      'bwrap-0.6',
      '    --unshare-user               Create new user namespace',
    )
    const mentioned = await fakeBwrap(
      'bwrap-mention',
      '    --assert-userns-disabled     Fail unless --disable-userns was given',
    )
    expect(bubblewrapFeatures(older)).toEqual({
      disableUserns: false,
      tmpfsSize: false,
      jsonStatus: false,
    })
    expect(bubblewrapFeatures(mentioned).disableUserns).toBe(false)
  })

  it('should find --json-status-fd in the help of bubblewrap 0.3.2 and later', async () => {
    const bwrap = await fakeBwrap(
      'bwrap-status',
      '    --info-fd FD                 Write information about the running container to FD\n    --json-status-fd FD          Write container status to FD as multiple JSON documents',
    )
    expect(bubblewrapFeatures(bwrap).jsonStatus).toBe(true)
  })

  it('should report no feature for a program that cannot run', () => {
    expect(bubblewrapFeatures(join(folder, 'missing-bwrap')).disableUserns).toBe(false)
  })
})
