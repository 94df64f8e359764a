import { createPlanCompiler } from '@plan/core'
import { aiSdkRuns } from './ai-sdk-runs.ts'
import { perRunInterleaved } from './interleave.ts'
import { echoPolicy } from './plans.ts'

// One fresh process of the AI SDK rows: its JIT, heap and code layout are its own, so the rows
// see how much a process decides, not one process's luck. Arguments: root, runs, batches.
const [root, runsText, batchesText] = process.argv.slice(2)
const compiler = await createPlanCompiler(echoPolicy(root as string))
const sampled = await perRunInterleaved(aiSdkRuns(compiler), {
  runs: Number(runsText),
  batches: Number(batchesText),
})
process.stdout.write(
  JSON.stringify(
    sampled.map((arm) => ({
      wall: arm.samples,
      cpu: arm.cpu?.samples ?? [],
      thread: arm.thread?.samples ?? [],
    })),
  ),
)
