export {
  type CommandPolicy,
  commandPolicySchema,
  type ProgramRule,
  programRuleSchema,
} from '@plan/shell/schema'
