/**
 * The zod schema of a policy's `commands` section. Kept off the main entry, which loads no zod.
 *
 * @packageDocumentation
 */
export {
  type CommandPolicy,
  commandPolicySchema,
  type ProgramRule,
  programRuleSchema,
} from './schema/command-policy.js'
