// One of two workers that resume the same run (a redelivered job): it loads the run, writes
// `loaded-<name>`, waits for `go-<name>`, then calls the plan's steps in order until one is
// denied (a step already done is skipped). Each tool start is a line `<step> <name>` in
// `starts.log`. `pause` holds it at one point: `after:<step>` once that step ran, `in:<step>`
// inside that step's tool (each writes `paused-<name>` and waits for `resume-<name>`), and
// `stop:<step>` ends it once that step ran. On stdout: each call's outcome (`ran`, or the
// denial's code).
import { appendFileSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createPlanGuardedTools } from '@plan/ai-sdk'
import type { PlanIssue } from '@plan/core'
import { createPostgresGuardStore } from '@plan/postgres'
import { tool } from 'ai'
import { z } from 'zod'

const [url, prefix, runId, dir, name, pause] = process.argv.slice(2) as string[]
const steps = ['a', 'b', 'c', 'd']

async function waitFor(file: string): Promise<void> {
  while (!existsSync(join(dir as string, file))) await new Promise((r) => setTimeout(r, 20))
}

async function pauseHere(): Promise<void> {
  writeFileSync(join(dir as string, `paused-${name}`), '')
  await waitFor(`resume-${name}`)
}

const store = createPostgresGuardStore({ connectionString: url as string, tablePrefix: prefix })
const { tools } = await createPlanGuardedTools({
  tools: {
    step: tool({
      inputSchema: z.object({ id: z.string() }),
      execute: async ({ id }) => {
        appendFileSync(join(dir as string, 'starts.log'), `${id} ${name}\n`)
        if (pause === `in:${id}`) await pauseHere()
        return id
      },
    }),
  },
  policy: {
    version: 1,
    workspace: { roots: [dir as string] },
    tools: { step: { args: { id: { type: 'string' } } } },
  },
  plan: steps.map((id, index) => ({
    id,
    tool: 'step',
    args: { id },
    ...(index === 0 ? {} : { depends_on: [steps[index - 1] as string] }),
  })),
  store,
  runId: runId as string,
})
writeFileSync(join(dir as string, `loaded-${name}`), '')
await waitFor(`go-${name}`)
const execute = tools.step.execute as unknown as (
  input: unknown,
  options: { toolCallId: string; messages: [] },
) => Promise<unknown>
const outcomes: string[] = []
for (const id of steps) {
  const outcome = await execute({ id }, { toolCallId: `${name}-${id}`, messages: [] }).then(
    () => 'ran',
    (error: { issues?: readonly PlanIssue[] }) => error.issues?.[0]?.code ?? String(error),
  )
  outcomes.push(`${id}:${outcome}`)
  // A step another worker finished is skipped, as an agent that sees its result would.
  if (outcome === 'step_already_done') continue
  if (outcome !== 'ran') break
  if (pause === `after:${id}`) await pauseHere()
  if (pause === `stop:${id}`) break
}
await store.close()
process.stdout.write(`${JSON.stringify(outcomes)}\n`)
