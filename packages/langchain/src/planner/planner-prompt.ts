import type { ArgSpec, PlanCompiler } from '@plan/core'
import { modelStepPlannerHint } from '@plan/core/adapter'

function describeArg(spec: ArgSpec): string {
  switch (spec.type) {
    case 'path':
      return `path (${spec.access})`
    case 'enum':
      return `one of ${spec.values.map((value) => JSON.stringify(value)).join(', ')}`
    case 'array':
      return `array of ${describeArg(spec.items)}`
    default:
      return spec.type
  }
}

/** The planner's system prompt: the plan format, the tools and the limits of the policy. */
export function plannerPrompt(compiler: PlanCompiler, instructions: string | undefined): string {
  const { policy, scope } = compiler.policy
  const tools = [...compiler.policy.tools.entries()].map(([name, tool]) => {
    const args = Object.entries(tool.args).map(([argName, spec]) => {
      const optional = spec.required === false ? '?' : ''
      return `${argName}${optional}: ${describeArg(spec)}`
    })
    const description = tool.description === undefined ? '' : ` — ${tool.description}`
    return `- ${name}(${args.join(', ')})${description}`
  })
  const lines = [
    'You plan the tool calls that an agent will make to complete a task. Answer with a plan:',
    '{ "goal": "...", "steps": [{ "id": "read", "tool": "<tool>", "args": { ... }, "depends_on": ["<step id>"] }] }.',
    'Step ids use letters, digits, "_" and "-". To pass the output of an earlier step, write { "$ref": "<step id>" } or { "$ref": "<step id>.output.<field>" } as the argument value; that step then runs first.',
    'Only these tools exist, with exactly these arguments (any other tool or argument is rejected):',
    ...tools,
    `Paths must stay inside ${scope.roots.join(', ')}.`,
    policy.commands.allow.length > 0
      ? `Commands may run only ${policy.commands.allow.join(', ')}, one simple command each: no pipes, lists, redirections or substitutions.`
      : 'No shell commands may run.',
    `A plan has at most ${policy.budgets.maxSteps} steps.`,
  ]
  const modelSteps = modelStepPlannerHint(compiler.policy.tools)
  if (modelSteps !== undefined) lines.push(modelSteps)
  if (instructions !== undefined && instructions !== '') lines.push('', instructions)
  return lines.join('\n')
}
