import type { PlanCompiler } from '../types/plan-compiler.js'
import { definePlan } from './define-plan.js'

declare const compiler: PlanCompiler

const plan = definePlan({
  goal: 'fix the login bug',
  steps: [
    { id: 'read', tool: 'view_file', args: { file: 'src/auth.ts' } },
    { id: 'test', tool: 'run_command', args: { command: 'npm test' }, depends_on: ['read'] },
  ],
})
export const result = compiler.validate(plan)
export const firstId: string | undefined = plan.steps[0]?.id

// A bare array of steps is a plan too.
export const bare = compiler.compile(definePlan([{ id: 'a', tool: 'list_files' }]))

// @ts-expect-error a step without a tool
definePlan({ steps: [{ id: 'a' }] })

// @ts-expect-error a misspelt key
definePlan({ steps: [{ id: 'a', tool: 't', depend_on: ['b'] }] })
