import { performance } from 'node:perf_hooks'
import {
  createMemoryGuardStore,
  createPlanCompiler,
  createPlanGuard,
  executePlan,
  type GuardStore,
} from '@plan/core'
import { finishDurableCall, saveGuardState, startDurableCall } from '@plan/core/adapter'

// Runs in its own process so that its peak RSS and heap are its own. `execute`: a chain of
// `size` no-op steps through compile, guard and executor, no store. `bytes`: a guard at step
// `size` of such a chain, saved after every call as the adapters save it (`saveGuardState`),
// then the bytes of one more call (its save before and after) into a counting store.
const [mode, sizeText] = process.argv.slice(2)
const size = Number(sizeText)
const limits = { maxSteps: 2_000_000, maxDepth: 2_000_000, maxFanOut: 2_000_000 }
const compiler = await createPlanCompiler({
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: { work: { args: { n: { type: 'number' } } } },
  budgets: limits,
})

/** The plan, compiled; the input steps are dropped, as an app drops the JSON it parsed. */
function compiledChain() {
  const steps = Array.from({ length: size }, (_, index) => ({
    id: `s${index}`,
    tool: 'work',
    args: { n: index },
    ...(index === 0 ? {} : { depends_on: [`s${index - 1}`] }),
  }))
  return compiler.compile(steps)
}

let peakHeap = 0
const sampler = setInterval(() => {
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)
}, 20)

async function execute(): Promise<Record<string, number>> {
  const start = performance.now()
  const plan = compiledChain()
  const result = await executePlan(plan, { work: async () => 'ok' }, { compiler, concurrency: 8 })
  const ms = performance.now() - start
  if (result.status !== 'completed') throw new Error(`run ended ${result.status}`)
  // What the plan and the run's result hold once the garbage is gone (needs --expose-gc): after
  // the run's last deferred callback, which still holds the run and its guard.
  await new Promise((resolve) => setImmediate(resolve))
  const collect = (globalThis as { gc?: () => void }).gc
  collect?.()
  const retainedHeapBytes = collect === undefined ? 0 : process.memoryUsage().heapUsed
  if (Object.keys(result.steps).length !== plan.steps.length) throw new Error('steps missing')
  return { ms, retainedHeapBytes }
}

/** A store that counts the bytes it is given: whole states and changes. */
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
      saveChanges: (runId, saved) => {
        written += Buffer.byteLength(JSON.stringify(saved))
        return memory.saveChanges?.(runId, saved) ?? Promise.resolve(false)
      },
    },
    written: () => written,
  }
}

async function bytesPerCall(): Promise<Record<string, number>> {
  const guard = createPlanGuard(compiledChain(), { compiler })
  const { store, written } = countingStore()
  let revision = 0
  const target = { store, runId: 'bench', nextRevision: () => ++revision }
  await saveGuardState(guard, target)
  for (let index = 0; index < size - 1; index += 1) {
    const result = await guard.authorize({ tool: 'work', args: { n: index } })
    if (!result.allowed) throw new Error(`step ${index} refused: ${result.issue.code}`)
    await saveGuardState(guard, target)
    guard.complete(result.stepId, 'ok')
    await saveGuardState(guard, target)
  }
  const before = written()
  const start = performance.now()
  const last = await guard.authorize({ tool: 'work', args: { n: size - 1 } })
  if (!last.allowed) throw new Error(`last step refused: ${last.issue.code}`)
  const issues = await startDurableCall({
    store,
    runId: 'bench',
    policy: guard.policy,
    tool: 'work',
    stepId: last.stepId,
    saved: { save: () => saveGuardState(guard, target) },
  })
  if (issues.length > 0) throw new Error(`the call was refused: ${issues[0]?.code}`)
  guard.complete(last.stepId, 'ok')
  await finishDurableCall(store, 'bench', () => saveGuardState(guard, target))
  const callMs = performance.now() - start
  const stateBytes = Buffer.byteLength(JSON.stringify(guard.snapshot()))
  return { bytes: written() - before, callUs: callMs * 1000, stateBytes }
}

const measured = mode === 'execute' ? await execute() : await bytesPerCall()
clearInterval(sampler)
peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)
const maxRssKb = process.resourceUsage().maxRSS
process.stdout.write(JSON.stringify({ ...measured, maxRssKb, peakHeapBytes: peakHeap }))
