import { createCommandChecker } from '@plan/core'
import { timeRuns } from './measure.ts'
import { COMMAND_MIX } from './suite-command.ts'

// Runs in a fresh process: checks per second of one checker, on commands it has seen (cache
// hits) and on new ones, beside the seed article's substring blocklist as the floor.
const BLOCKED = ['|', '>', '<', ';', '&', '$(', '`']
const naive = (command: string) => !BLOCKED.some((token) => command.includes(token))

const checker = await createCommandChecker({
  policy: {
    allow: ['git', 'npm', 'pytest', 'ls', 'cat', 'grep', 'find', 'head', 'echo'],
    maxLength: 8192,
  },
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
process.stdout.write(JSON.stringify({ count, warm, cold, floor }))
