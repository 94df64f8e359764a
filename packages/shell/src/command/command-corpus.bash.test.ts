import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { commandPolicySchema } from '../schema/command-policy.js'
import type { PathScope } from '../types/path-scope.js'
import { type CommandChecker, createCommandChecker } from './create-command-checker.js'

const corpus = JSON.parse(
  readFileSync(new URL('./__fixtures__/command-corpus.json', import.meta.url), 'utf8'),
) as {
  readonly policy: unknown
  readonly scope: PathScope
  readonly cases: readonly { readonly command: string; readonly expect: string }[]
}
const everyday = JSON.parse(
  readFileSync(new URL('./__fixtures__/everyday-commands.json', import.meta.url), 'utf8'),
) as { readonly policy: unknown; readonly scope: PathScope; readonly commands: readonly string[] }
const hasBash = spawnSync('bash', ['--version']).status === 0
const RECORD_END = '\u0001'

/**
 * The argv real bash builds for each command: every command runs as the arguments of
 * `printf '%s\0'`, so bash does the quote removal and word splitting, and prints each word.
 * Runs in an empty folder with HOME elsewhere, so a glob or a tilde bash expanded would show.
 */
function bashArgv(commands: readonly string[], folder: string): string[][] {
  const script = commands.map((command) => `printf '%s\\0' ${command}; printf '\\1'`).join('\n')
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', script], {
    cwd: folder,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent-home' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  expect(result.status).toBe(0)
  return result.stdout
    .split(RECORD_END)
    .slice(0, commands.length)
    .map((record) => record.split('\0').slice(0, -1))
}

describe('createCommandChecker (against bash)', () => {
  let checker: CommandChecker
  let everydayChecker: CommandChecker
  let folder: string
  beforeAll(async () => {
    checker = await createCommandChecker({
      policy: commandPolicySchema.parse(corpus.policy),
      scope: corpus.scope,
    })
    everydayChecker = await createCommandChecker({
      policy: commandPolicySchema.parse(everyday.policy),
      scope: everyday.scope,
    })
    folder = mkdtempSync(join(tmpdir(), 'plan-bash-argv-'))
  })
  afterAll(() => rmSync(folder, { recursive: true, force: true }))

  const test = hasBash || process.env.CI === 'true' ? it : it.skip
  test(`should return the argv bash passes for every command the corpus allows${hasBash ? '' : ' (skipped: bash is not installed)'}`, () => {
    expect(hasBash).toBe(true)
    const allowed = [
      ...corpus.cases.map((entry) => ({
        command: entry.command,
        result: checker.check(entry.command),
      })),
      ...everyday.commands.map((command) => ({ command, result: everydayChecker.check(command) })),
    ].filter((entry) => entry.result.allowed)
    expect(allowed.length).toBeGreaterThan(380)
    const fromBash = bashArgv(
      allowed.map((entry) => entry.command),
      folder,
    )
    const differ = allowed.flatMap((entry, index) => {
      const argv = entry.result.allowed ? entry.result.argv : []
      // A program given by its path in a system folder is returned by its bare name.
      const bash = fromBash[index] ?? []
      const other = [bash[0]?.slice(bash[0].lastIndexOf('/') + 1), ...bash.slice(1)]
      return JSON.stringify(argv) === JSON.stringify(other)
        ? []
        : [{ command: entry.command, checker: argv, bash: other }]
    })
    expect(differ).toEqual([])
  }, 60_000)
})
