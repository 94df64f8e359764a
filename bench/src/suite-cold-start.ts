import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { type Row, round, spreadFields, spreadOf } from './measure.ts'

const RUNS = 21
const cwd = fileURLToPath(new URL('..', import.meta.url))

// What a serverless function does on a cold start: import, build a compiler, validate one plan.
// The child reports the in-process split; the parent times the whole process. The child reads its
// clock with `process.hrtime`: the first use of `performance` loads a module of Node's own (4 M
// instructions, 5% of a bare start) that the bare start it is compared with does not load.
function program(withCommands: boolean): string {
  const tools = withCommands
    ? `{ view_file: { args: { file: { type: 'path' } } }, run_command: { args: { command: { type: 'command' } } } }`
    : `{ view_file: { args: { file: { type: 'path' } } } }`
  const commands = withCommands ? `commands: { allow: ['git'] },` : ''
  const steps = withCommands
    ? `[{ id: 'a', tool: 'view_file', args: { file: 'src/a.ts' } }, { id: 'b', tool: 'run_command', args: { command: 'git status' }, depends_on: ['a'] }]`
    : `[{ id: 'a', tool: 'view_file', args: { file: 'src/a.ts' } }]`
  return `
const t0 = process.hrtime.bigint()
const { createPlanCompiler } = await import('@plan/core')
const t1 = process.hrtime.bigint()
const compiler = await createPlanCompiler({ version: 1, workspace: { roots: ['/srv/repo'] }, tools: ${tools}, ${commands} })
const t2 = process.hrtime.bigint()
const result = compiler.validate({ steps: ${steps} })
const t3 = process.hrtime.bigint()
if (!result.success) throw new Error('the plan should be approved')
const cpu = process.cpuUsage()
process.stdout.write(JSON.stringify({ importMs: Number(t1 - t0) / 1e6, createMs: Number(t2 - t1) / 1e6, validateMs: Number(t3 - t2) / 1e6, cpuMs: (cpu.user + cpu.system) / 1000 }))
`
}

// A second bare start that prints its CPU time, the CPU baseline (the timed bare start prints nothing).
const BARE_CPU =
  'const cpu = process.cpuUsage(); process.stdout.write(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000 }))'

/** CPU time (user + system, all threads) of a child, from its own count just before it exits. */
function cpuOf(stdout: string): number {
  return (JSON.parse(stdout) as { cpuMs: number }).cpuMs
}

interface Split {
  readonly importMs: number
  readonly createMs: number
  readonly validateMs: number
  readonly cpuMs: number
}

function timeProcess(args: string[]): { ms: number; stdout: string } {
  const start = performance.now()
  const child = spawnSync(process.execPath, args, { cwd, encoding: 'utf8' })
  const ms = performance.now() - start
  if (child.status !== 0) throw new Error(`cold-start child failed: ${child.stderr}`)
  return { ms, stdout: child.stdout }
}

/** Cold start of a compiler in a new process, against a bare `node` start measured alongside. */
export async function coldStartSuite(): Promise<Row[]> {
  const bare: number[] = []
  const bareCpu: number[] = []
  const plain: number[] = []
  const commands: number[] = []
  const splits: Record<'plain' | 'commands', Split[]> = { plain: [], commands: [] }
  const plainArgs = ['--input-type=module', '-e', program(false)]
  const commandArgs = ['--input-type=module', '-e', program(true)]
  timeProcess(plainArgs)
  // Interleaved, so that a slow moment of the machine hits every case alike.
  for (let index = 0; index < RUNS; index += 1) {
    bare.push(timeProcess(['-e', '']).ms)
    bareCpu.push(cpuOf(timeProcess(['-e', BARE_CPU]).stdout))
    const withoutCommands = timeProcess(plainArgs)
    plain.push(withoutCommands.ms)
    splits.plain.push(JSON.parse(withoutCommands.stdout))
    const withCommands = timeProcess(commandArgs)
    commands.push(withCommands.ms)
    splits.commands.push(JSON.parse(withCommands.stdout))
  }
  const bareSpread = spreadOf(bare)
  const bareCpuMedian = spreadOf(bareCpu).median
  const row = (label: string, times: number[], split: Split[], target: number): Row => {
    const total = spreadOf(times)
    const over = total.median - bareSpread.median
    const part = (key: keyof Split) => round(spreadOf(split.map((entry) => entry[key])).median)
    const cpu = spreadOf(split.map((entry) => entry.cpuMs)).median
    return {
      suite: 'cold start',
      case: `new process: import @plan/core + createPlanCompiler + first validate, ${label} (in process, medians: import ${part('importMs')} ms, create ${part('createMs')} ms, validate ${part('validateMs')} ms)`,
      ...spreadFields(total, bareSpread),
      unit: 'ms',
      baseline: "bare `node -e ''` start",
      target: `≤ ${target} ms over bare Node`,
      note: `${round(over)} ms over bare (median − median): ${over <= target ? 'met' : 'missed'}; min − min ${round(total.min - bareSpread.min)} ms; CPU time (the process's own count, all threads) ${round(cpu)} ms against ${round(bareCpuMedian)} ms, ${round(cpu / bareCpuMedian)}×`,
    }
  }
  return [
    row('policy without commands', plain, splits.plain, 30),
    row('policy with a command argument (WASM grammar loaded)', commands, splits.commands, 80),
  ]
}
