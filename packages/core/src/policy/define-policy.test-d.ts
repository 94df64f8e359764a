import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { planSchemaForPolicy } from '../plan/plan-schema-for-policy.js'
import { definePolicy } from './define-policy.js'

// A plain literal, no `as const` or `satisfies`: `version` stays `1`, arrays stay usable.
const policy = definePolicy({
  version: 1,
  workspace: { roots: ['/srv/repo'], readOnly: ['.git'] },
  tools: {
    view_file: { args: { file: { type: 'path', access: 'read' } } },
    run_command: { args: { command: { type: 'command' } } },
  },
  commands: { allow: ['git', 'npm'] },
  budgets: { maxSteps: 200 },
})
export const compiler = createPlanCompiler(policy)
export const schema = planSchemaForPolicy(policy)
export const version: 1 = policy.version

// Built elsewhere and passed in: still a policy.
const roots = ['/srv/repo']
export const fromParts = definePolicy({ version: 1, workspace: { roots }, tools: {} })

// @ts-expect-error version 2 does not exist
definePolicy({ version: 2, workspace: { roots: ['/srv'] }, tools: {} })

definePolicy({
  version: 1,
  workspace: { roots: ['/srv'] },
  // @ts-expect-error an argument type that does not exist
  tools: { view_file: { args: { file: { type: 'file' } } } },
})

// @ts-expect-error a misspelt key
definePolicy({ version: 1, workspace: { roots: ['/srv'] }, tools: {}, budget: {} })

// Examples: whole calls as argument objects, commands as strings.
export const withExamples = definePolicy({
  version: 1,
  workspace: { roots: ['/srv'] },
  tools: {
    view_file: {
      args: { file: { type: 'path' } },
      examples: { allow: [{ file: 'README.md' }], deny: [{ file: '/etc/passwd' }] },
    },
  },
  commands: { allow: ['git'], rules: { git: { examples: { deny: ['git push'] } } } },
})

definePolicy({
  version: 1,
  workspace: { roots: ['/srv'] },
  // @ts-expect-error a tool's example is the call's arguments, not a command
  tools: { view_file: { args: {}, examples: { allow: ['view_file README.md'] } } },
})
