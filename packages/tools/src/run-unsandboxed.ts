import { spawn } from 'node:child_process'
import { collectProcess } from './collect-process.js'
import type { CommandRunner } from './command-runner.js'

let warned = false

/**
 * A {@link CommandRunner} without any OS sandbox: the program runs directly (no shell) in its
 * own process group, which is killed on timeout, on abort, on overflow and when the program
 * exits. Only for an explicit `sandbox: 'none'`; it warns once per process.
 */
export function createUnsandboxedRunner(basicEnv: Readonly<Record<string, string>>): CommandRunner {
  if (!warned) {
    warned = true
    process.emitWarning(
      "run_command runs programs without an OS sandbox (sandbox: 'none'); use @plan/sandbox.",
      { code: 'PLAN_SANDBOX_NONE' },
    )
  }
  return async (argv, options) => {
    const [program, ...rest] = argv
    if (program === undefined) throw new TypeError('argv is empty')
    const child = spawn(program, rest, {
      cwd: options.cwd,
      env: { ...basicEnv, ...options.env },
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    })
    return { ...(await collectProcess(child, options)), violations: [] }
  }
}
