import { toText } from '@plan/render'
import { type CliIo, EXIT_APPROVED, EXIT_REJECTED, UsageError } from '../io.js'
import { issueJson, writeJson } from '../json-output.js'
import { loadCompiler } from '../load-compiler.js'
import { readPlanInput } from '../read-input.js'
import { writeWarnings } from '../write-warnings.js'

/** Options of `plan check`. */
export interface CheckOptions {
  readonly planFile: string
  readonly policyFile: string | undefined
  readonly format: string
  readonly color: boolean
}

/**
 * `plan check`: validates a plan, or the tool calls of a LangChain or AI SDK transcript; prints
 * the execution tree or one JSON document.
 */
export async function runCheck(options: CheckOptions, io: CliIo): Promise<number> {
  if (options.format !== 'text' && options.format !== 'json')
    throw new UsageError(`unknown --format ${JSON.stringify(options.format)} (text or json)`)
  const { compiler, warnings } = await loadCompiler(options.policyFile, io)
  const { kind, plan } = await readPlanInput(options.planFile, io)
  const result = compiler.validate(plan)
  if (options.format === 'json') {
    writeJson(io.stdout, {
      approved: result.success,
      input: kind,
      hash: result.success ? result.plan.hash : null,
      order: result.success ? result.plan.order : [],
      levels: result.success ? result.plan.levels : [],
      issues: result.issues.map(issueJson),
      warnings,
    })
  } else {
    writeWarnings(io, warnings)
    const text = result.success
      ? toText(result.plan, { color: options.color })
      : toText(plan, { issues: result.issues, color: options.color })
    io.stdout.write(`${text}\n`)
  }
  return result.success ? EXIT_APPROVED : EXIT_REJECTED
}
