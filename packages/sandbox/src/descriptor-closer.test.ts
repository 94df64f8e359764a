import { type StdioNull, type StdioPipe, spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CLOSE_DESCRIPTORS, CLOSER_NAME } from './descriptor-closer.js'
import { findProgram } from './find-program.js'

const bash = findProgram('bash', process.env.PATH ?? '')

/** Runs `argv` under the closer keeping descriptors below `keep`, with `/dev/null` open at 3 to 9 and at 100. */
async function close(keep: number, argv: readonly string[]) {
  const file = openSync('/dev/null', 'r')
  const stdio: (StdioNull | StdioPipe | number)[] = ['ignore', 'pipe', 'pipe']
  while (stdio.length < 100) stdio.push(stdio.length < 10 ? file : 'ignore')
  stdio.push(file)
  try {
    const child = spawn(
      bash as string,
      ['--norc', '--noprofile', '-c', CLOSE_DESCRIPTORS, CLOSER_NAME, String(keep), ...argv],
      { env: { PLAN_SECRET: 'x' }, stdio },
    )
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve))
    return { exitCode, stdout, stderr }
  } finally {
    closeSync(file)
  }
}

describe.skipIf(bash === undefined)('CLOSE_DESCRIPTORS', () => {
  const list =
    'for f in /proc/self/fd/*; do if [[ -L $f && $f =~ [0-9]+$ ]]; then echo $BASH_REMATCH; fi; done'

  it('should close every descriptor from the first one to close up, and keep those below', async () => {
    expect(await close(3, [bash as string, '-c', list])).toMatchObject({ stdout: '0\n1\n2\n' })
    expect(await close(10, [bash as string, '-c', list])).toMatchObject({
      stdout: '0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n',
    })
  })

  it('should start the command with an empty environment', async () => {
    expect(await close(3, ['/usr/bin/env'])).toEqual({ exitCode: 0, stdout: '', stderr: '' })
  })

  it(`should report a command it cannot start under the name ${CLOSER_NAME}`, async () => {
    const result = await close(3, ['/plan-no-such-program'])
    expect(result.exitCode).toBe(127)
    expect(result.stderr.startsWith(`${CLOSER_NAME}: `)).toBe(true)
  })
})
