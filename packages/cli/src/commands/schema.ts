import { planJsonSchema, policyJsonSchema } from '@plan/core'
import { type CliIo, EXIT_APPROVED, UsageError } from '../io.js'

/** `plan schema plan|policy`: prints a JSON Schema. */
export function runSchema(which: string | undefined, io: CliIo): number {
  if (which !== 'plan' && which !== 'policy') throw new UsageError('usage: plan schema plan|policy')
  const schema = which === 'plan' ? planJsonSchema() : policyJsonSchema()
  io.stdout.write(`${JSON.stringify(schema, null, 2)}\n`)
  return EXIT_APPROVED
}
