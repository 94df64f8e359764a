import { planJsonSchema, planSchemaForPolicy, policyJsonSchema } from '@plan/core/schemas'
import { z } from 'zod'
import { type CliIo, EXIT_APPROVED, UsageError } from '../io.js'
import { writeJson } from '../json-output.js'
import { loadPolicyFile } from '../load-compiler.js'
import { writeWarnings } from '../write-warnings.js'

/** Options of `plan schema`. */
export interface SchemaOptions {
  readonly which: string | undefined
  readonly policyFile: string | undefined
}

/**
 * `plan schema plan|policy`: prints a JSON Schema. With `--policy`, the plan schema is narrowed
 * to that policy: each step names one of its tools with only that tool's declared arguments.
 */
export async function runSchema(options: SchemaOptions, io: CliIo): Promise<number> {
  const { which, policyFile } = options
  if (which !== 'plan' && which !== 'policy')
    throw new UsageError('usage: plan schema plan|policy [--policy <policy.json>]')
  if (which === 'policy') {
    if (policyFile !== undefined)
      throw new UsageError('--policy narrows the plan schema only: plan schema plan --policy …')
    writeJson(io.stdout, policyJsonSchema())
    return EXIT_APPROVED
  }
  if (policyFile === undefined) {
    writeJson(io.stdout, planJsonSchema())
    return EXIT_APPROVED
  }
  const { policy, warnings } = await loadPolicyFile(policyFile, io)
  writeWarnings(io, warnings)
  const schema = z.toJSONSchema(planSchemaForPolicy(policy), {
    io: 'input',
    unrepresentable: 'any',
  })
  writeJson(io.stdout, schema)
  return EXIT_APPROVED
}
