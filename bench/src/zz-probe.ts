import { writeHeapSnapshot } from 'node:v8'
import { createPlanCompiler, executePlan } from '@plan/core'
const size = Number(process.argv[2])
const snapAt = Number(process.argv[3] ?? 0)
const limits = { maxSteps: 2_000_000, maxDepth: 2_000_000, maxFanOut: 2_000_000 }
const compiler = await createPlanCompiler({ version: 1, workspace: { roots: ['/srv/repo'] }, tools: { work: { args: { n: { type: 'number' } } } }, budgets: limits })
const steps = Array.from({ length: size }, (_, index) => ({ id: `s${index}`, tool: 'work', args: { n: index }, ...(index === 0 ? {} : { depends_on: [`s${index - 1}`] }) }))
const plan = compiler.compile(steps)
steps.length = 0
const gc = (globalThis as any).gc
gc(); const base = process.memoryUsage().heapUsed
let n = 0, mid = 0
const result = await executePlan(plan, { work: async () => { n++; if (n === Math.floor(size * 0.9)) { gc(); mid = process.memoryUsage().heapUsed; if (snapAt) writeHeapSnapshot('/tmp/mem2/mid.heapsnapshot') } return 'ok' } }, { compiler, concurrency: 8 })
await new Promise((r) => setImmediate(r)); gc()
const after = process.memoryUsage().heapUsed
console.log(JSON.stringify({ planMB: base / 2 ** 20, midMB: mid / 2 ** 20, afterMB: after / 2 ** 20, perStepMid: (mid - base) / (size * 0.9), perStepAfter: (after - base) / size, status: result.status, rss: process.resourceUsage().maxRSS / 1024 }))
