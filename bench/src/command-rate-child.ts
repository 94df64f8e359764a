import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCommandChecker } from '@plan/core'
import { timeRuns } from './measure.ts'
import { COMMAND_MIX } from './suite-command.ts'

// Runs in a fresh process: checks per second of one checker, on commands it has seen (cache
// hits) and on new ones, beside the seed article's substring blocklist as the floor.
const BLOCKED = ['|', '>', '<', ';', '&', '$(', '`']
const naive = (command: string) => !BLOCKED.some((token) => command.includes(token))

const policy = {
  allow: ['git', 'npm', 'pytest', 'ls', 'cat', 'grep', 'find', 'head', 'echo'],
  maxLength: 8192,
}
const checker = await createCommandChecker({
  policy,
  scope: { roots: ['/srv/repo'], readOnly: [], deny: ['/srv/repo/.env'] },
})
const count = 20_000
const warm = timeRuns(() => {
  for (let index = 0; index < count; index += 1)
    checker.check(COMMAND_MIX[index % COMMAND_MIX.length] as string)
}, 5)
let unique = 0
const cold = timeRuns(
  () => {
    for (let index = 0; index < count; index += 1) {
      unique += 1
      checker.check(`${COMMAND_MIX[index % COMMAND_MIX.length]} x${unique}`)
    }
  },
  5,
  1,
)
const floor = timeRuns(() => {
  for (let index = 0; index < count; index += 1)
    naive(`${COMMAND_MIX[index % COMMAND_MIX.length]} x${index}`)
}, 5)
// The same mix against a workspace on disk, which the files the mix names exist in: every path
// value is resolved (one lstat per name in the root).
const base = realpathSync(mkdtempSync(join(tmpdir(), 'plan-bench-')))
for (const file of ['.env', 'README.md', 'src/index.ts', 'tests/test_auth.py', 'logs/app.log']) {
  mkdirSync(join(base, file, '..'), { recursive: true })
  writeFileSync(join(base, file), '\n')
}
const onDisk = await createCommandChecker({
  policy,
  scope: { roots: [base], readOnly: [], deny: [join(base, '.env')] },
})
const coldOnDisk = timeRuns(
  () => {
    for (let index = 0; index < count; index += 1) {
      unique += 1
      onDisk.check(`${COMMAND_MIX[index % COMMAND_MIX.length]} x${unique}`)
    }
  },
  5,
  1,
)
rmSync(base, { recursive: true, force: true })
process.stdout.write(JSON.stringify({ count, warm, cold, coldOnDisk, floor }))
