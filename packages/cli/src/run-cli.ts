import { parseArgs } from 'node:util'
import { runCheck } from './commands/check.js'
import { runGraph } from './commands/graph.js'
import { runInit } from './commands/init.js'
import { runPolicy } from './commands/policy.js'
import { runSchema } from './commands/schema.js'
import { type CliIo, EXIT_APPROVED, EXIT_USAGE, UsageError } from './io.js'
import { errorJson, writeJson } from './json-output.js'

const USAGE = `usage: plan <command> [options]

commands:
  check <plan.json|-> --policy <policy.json> [--format text|json]
        exit 0 approved, 1 rejected, 2 unusable input; the plan may also be
        a LangChain or AI SDK transcript (its tool calls are checked)
  graph <plan.json|-> --policy <policy.json> [--format mermaid|dot|text]
  schema plan|policy [--policy <policy.json>]
        print a JSON Schema; with --policy, the plan schema narrowed to it
  init [--output plan.policy.json|-] [--root .] [--force]
        write a starter policy for a repository
  policy diff <old.json> <new.json> [--format text|json]
        what NEW allows that OLD refused and the reverse; exit 0 when NEW
        is not looser, 1 when it is, 2 unusable input
  policy test <policy.json> <cases.jsonl> [--format text|json]
        decide each case; exit 0 when all pass, 1 when one fails, 2 unusable input
`

/**
 * Runs the `plan` command with the given arguments and returns its exit code; never throws
 * for bad input and never prints a stack trace for it.
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(process.argv.slice(2), nodeIo())
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        policy: { type: 'string', short: 'p' },
        format: { type: 'string', short: 'f' },
        output: { type: 'string', short: 'o' },
        root: { type: 'string' },
        force: { type: 'boolean' },
        color: { type: 'boolean' },
        'no-color': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
    const [command, target, ...rest] = positionals
    if (values.help === true || command === 'help') {
      io.stdout.write(USAGE)
      return EXIT_APPROVED
    }
    const color =
      values['no-color'] === true || io.env.NO_COLOR !== undefined
        ? false
        : values.color === true || io.stdout.isTTY === true
    const extra = () => {
      if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`)
    }
    switch (command) {
      case 'check':
        extra()
        if (target === undefined)
          throw new UsageError('usage: plan check <plan.json|-> --policy <policy.json>')
        return await runCheck(
          { planFile: target, policyFile: values.policy, format: values.format ?? 'text', color },
          io,
        )
      case 'graph':
        extra()
        if (target === undefined)
          throw new UsageError(
            'usage: plan graph <plan.json|-> --policy <policy.json> --format mermaid|dot|text',
          )
        return await runGraph(
          {
            planFile: target,
            policyFile: values.policy,
            format: values.format ?? 'mermaid',
            color,
          },
          io,
        )
      case 'schema':
        extra()
        return await runSchema({ which: target, policyFile: values.policy }, io)
      case 'init':
        if (target !== undefined)
          throw new UsageError(`unexpected argument ${JSON.stringify(target)}`)
        return await runInit(
          {
            output: values.output ?? 'plan.policy.json',
            root: values.root ?? '.',
            force: values.force === true,
          },
          io,
        )
      case 'policy':
        return await runPolicy({ action: target, files: rest, format: values.format ?? 'text' }, io)
      case undefined:
        throw new UsageError(`missing command\n\n${USAGE}`)
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`)
    }
  } catch (error) {
    return reportError(error, argv, io)
  }
}

// Under `--format json` every outcome is one JSON document on standard output, errors included.
function wantsJson(argv: readonly string[]): boolean {
  return argv.some(
    (argument, index) =>
      argument === '--format=json' ||
      argument === '-fjson' ||
      ((argument === '--format' || argument === '-f') && argv[index + 1] === 'json'),
  )
}

function reportError(error: unknown, argv: readonly string[], io: CliIo): number {
  const usage =
    error instanceof UsageError ||
    ((error as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS') ?? false)
  const reason = (error as Error)?.message ?? String(error)
  const message = usage ? reason : `internal error: ${reason}`
  if (wantsJson(argv))
    writeJson(io.stdout, errorJson(message, error instanceof UsageError ? error.issues : []))
  else io.stderr.write(`plan: ${message}\n`)
  return EXIT_USAGE
}
