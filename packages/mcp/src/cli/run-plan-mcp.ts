import { formatIssues, PlanError } from '@plan/core'
import { errorMessage } from '@plan/core/adapter'
import { parseCliArgs, USAGE } from './parse-cli-args.js'
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type PlanMcpIo } from './plan-mcp-io.js'
import { runInit } from './run-init.js'
import { runListen } from './run-listen.js'
import { runPin } from './run-pin.js'
import { runProxy } from './run-proxy.js'

/**
 * Runs `plan-mcp` with its arguments (without `node` and the script) and returns the exit
 * code: 0 done, 1 the server could not run, 2 unusable arguments, policy, plan or audit log.
 * Diagnostics go to stderr only; stdout carries MCP messages.
 */
export async function runPlanMcp(argv: readonly string[], io: PlanMcpIo): Promise<number> {
  const parsed = parseCliArgs(argv)
  if (!parsed.success) {
    io.stderr.write(`plan-mcp: ${parsed.message}\n\n${USAGE}\n`)
    return EXIT_USAGE
  }
  const command = parsed.command
  if (command.kind === 'help') {
    io.stderr.write(`${USAGE}\n`)
    return EXIT_OK
  }
  try {
    if (command.kind === 'init') return await runInit(command, io)
    if (command.kind === 'pin') return await runPin(command, io)
    const listen = command.listen
    return listen === undefined
      ? await runProxy(command, io)
      : await runListen({ ...command, listen }, io)
  } catch (error) {
    if (PlanError.isInstance(error)) {
      const issues = error.issues.length > 0 ? `\n${formatIssues(error.issues)}` : ''
      io.stderr.write(`plan-mcp: ${error.message.split('\n')[0]}${issues}\n`)
      return EXIT_USAGE
    }
    io.stderr.write(`plan-mcp: ${errorMessage(error)}\n`)
    return EXIT_FAILED
  }
}
