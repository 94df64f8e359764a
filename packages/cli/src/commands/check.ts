import { toText } from '@plan/core'
import { type CliIo, EXIT_APPROVED, EXIT_REJECTED, UsageError } from '../io.js'
import { loadCompiler } from '../load-compiler.js'
import { readJsonInput } from '../read-input.js'

/** Options of `plan check`. */
export interface CheckOptions {
  readonly planFile: string
  readonly policyFile: string | undefined
  readonly format: string
  readonly color: boolean
}

/** `plan check`: validates a plan; prints the execution tree or one JSON document. */
export async function runCheck(options: CheckOptions, io: CliIo): Promise<number> {
  if (options.format !== 'text' && options.format !== 'json')
    throw new UsageError(`unknown --format ${JSON.stringify(options.format)} (text or json)`)
  const compiler = await loadCompiler(options.policyFile, io)
  const plan = await readJsonInput(options.planFile, io, 'plan')
  const result = compiler.validate(plan)
  if (options.format === 'json') {
    const document = {
      approved: result.success,
      hash: result.success ? result.plan.hash : null,
      order: result.success ? result.plan.order : [],
      levels: result.success ? result.plan.levels : [],
      issues: result.issues.map((found) => ({
        code: found.code,
        stepId: found.stepId ?? null,
        path: found.path,
        message: found.message,
        hint: found.hint ?? null,
        ...(found.cycle === undefined ? {} : { cycle: found.cycle }),
      })),
    }
    io.stdout.write(`${JSON.stringify(document, null, 2)}\n`)
  } else {
    const text = result.success
      ? toText(result.plan, { color: options.color })
      : toText(plan, { issues: result.issues, color: options.color })
    io.stdout.write(`${text}\n`)
  }
  return result.success ? EXIT_APPROVED : EXIT_REJECTED
}
