import { execFile, execFileSync } from 'node:child_process'
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { promisify } from 'node:util'
import { bubblewrapArgs, checkSandbox, createSandbox } from '@plan/sandbox'
import { type Row, round, type Spread, spreadFields, spreadOf } from './measure.ts'

const run = promisify(execFile)
const RUNS = 50

/** Min, median and max of interleaved runs of async functions, in milliseconds, in their order. */
async function interleaved(fns: readonly (() => Promise<unknown>)[]): Promise<Spread[]> {
  const times: number[][] = fns.map(() => [])
  for (let index = 0; index < RUNS + 3; index += 1) {
    for (const [slot, fn] of fns.entries()) {
      const start = performance.now()
      await fn()
      if (index >= 3) times[slot]?.push(performance.now() - start)
    }
  }
  return times.map((samples) => spreadOf(samples))
}

/** Per-command cost of the bubblewrap sandbox against the same program run by execFile. */
export async function sandboxSuite(): Promise<Row[]> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'plan-bench-sandbox-')))
  try {
    await writeFile(join(root, 'a.txt'), 'a\n')
    const git = {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'b',
        GIT_AUTHOR_EMAIL: 'b@b',
        GIT_COMMITTER_NAME: 'b',
        GIT_COMMITTER_EMAIL: 'b@b',
      },
      cwd: root,
    }
    execFileSync('git', ['init', '-q'], git)
    execFileSync('git', ['add', '.'], git)
    execFileSync('git', ['commit', '-q', '-m', 'a'], git)
    const policy = { version: 1 as const, workspace: { roots: [root] }, tools: {} }
    const check = checkSandbox(policy)
    const rows: Row[] = []
    for (const argv of [['true'], ['git', 'status']]) {
      const name = `${RUNS} runs of \`${argv.join(' ')}\` in bubblewrap`
      if (!check.available) {
        rows.push({
          suite: 'sandbox',
          case: name,
          value: 0,
          unit: 'ms',
          baseline: 'execFile',
          baselineValue: null,
          ratio: null,
          note: `failed: ${check.issue.message}`,
        })
        continue
      }
      const sandbox = createSandbox(policy)
      // Before the workspace protection: the same bubblewrap arguments under prlimit, started
      // without the workspace scan, the check after the command, the pids cgroup or the disk watcher.
      const bare = [
        '--fsize=1073741824:1073741824',
        '--nofile=4096:4096',
        '--',
        check.bwrap,
        ...bubblewrapArgs(sandbox.config, { argv, cwd: root, tmpBytes: 1024 ** 3 }),
      ]
      const [inside, before, plain] = (await interleaved([
        () => sandbox.run(argv, { cwd: root }),
        () => run(check.prlimit, bare, { cwd: root }),
        () => run(argv[0] as string, argv.slice(1), { cwd: root }),
      ])) as [Spread, Spread, Spread]
      rows.push({
        suite: 'sandbox',
        case: name,
        ...spreadFields(inside, plain),
        unit: 'ms',
        baseline: 'the same program by execFile, interleaved',
        note: `adds ${round(inside.median - plain.median)} ms per command (median − median)`,
      })
      rows.push({
        suite: 'sandbox',
        case: `${name}: after (createSandbox run) vs before (bubblewrap alone)`,
        ...spreadFields(inside, before),
        unit: 'ms',
        baseline:
          'prlimit + bubblewrap with the same mounts (no seccomp filter), without the workspace scan, check, pids cgroup and disk watcher, interleaved',
        note: `the workspace protection and quotas add ${round(inside.median - before.median)} ms per command (median − median)`,
      })
    }
    return rows
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}
