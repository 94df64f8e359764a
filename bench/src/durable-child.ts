import { performance } from 'node:perf_hooks'
import {
  createMemoryGuardStore,
  createPlanCompiler,
  createPlanGuard,
  executePlan,
  type GuardStore,
} from '@plan/core'
import { finishDurableCall, startDurableCall } from '@plan/core/adapter'

// Runs in its own process so that its peak RSS is its own. `execute`: a chain of `size` no-op
// steps through compile, guard and executor, no store. `bytes`: a guard at step `size` of such a
// chain, then one call as the adapters make it (save before, save after) into a counting store.
const [mode, sizeText] = process.argv.slice(2)
const size = Number(sizeText)
const limits = { maxSteps: 2_000_000, maxDepth: 2_000_000, maxFanOut: 2_000_000 }
const compiler = await createPlanCompiler({
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: { work: { args: { n: { type: 'number' } } } },
  budgets: limits,
})
const steps = Array.from({ length: size }, (_, index) => ({
  id: `s${index}`,
  tool: 'work',
  args: { n: index },
  ...(index === 0 ? {} : { depends_on: [`s${index - 1}`] }),
}))

async function execute(): Promise<Record<string, number>> {
  const start = performance.now()
  const plan = compiler.compile(steps)
  const result = await executePlan(plan, { work: async () => 'ok' }, { compiler, concurrency: 8 })
  if (result.status !== 'completed') throw new Error(`run ended ${result.status}`)
  return { ms: performance.now() - start }
}

/** A store that counts the bytes of the states saved to it. */
function countingStore(): { store: GuardStore; written: () => number } {
  const memory = createMemoryGuardStore()
  let written = 0
  return {
    store: {
      ...memory,
      save: (runId, saved) => {
        written += Buffer.byteLength(JSON.stringify(saved))
        return memory.save(runId, saved)
      },
    },
    written: () => written,
  }
}

async function bytesPerCall(): Promise<Record<string, number>> {
  const guard = createPlanGuard(compiler.compile(steps), { compiler })
  for (let index = 0; index < size - 1; index += 1) {
    const result = await guard.authorize({ tool: 'work', args: { n: index } })
    if (!result.allowed) throw new Error(`step ${index} refused: ${result.issue.code}`)
    guard.complete(result.stepId, 'ok')
  }
  const { store, written } = countingStore()
  const last = await guard.authorize({ tool: 'work', args: { n: size - 1 } })
  if (!last.allowed) throw new Error(`last step refused: ${last.issue.code}`)
  let revision = 0
  const saved = () => ({ revision: ++revision, state: guard.snapshot() })
  const issues = await startDurableCall({
    store,
    runId: 'bench',
    policy: guard.policy,
    tool: 'work',
    stepId: last.stepId,
    saved,
  })
  if (issues.length > 0) throw new Error(`the call was refused: ${issues[0]?.code}`)
  guard.complete(last.stepId, 'ok')
  await finishDurableCall(store, 'bench', saved())
  return { bytes: written() }
}

const measured = mode === 'execute' ? await execute() : await bytesPerCall()
process.stdout.write(JSON.stringify({ ...measured, maxRssKb: process.resourceUsage().maxRSS }))
