import type { ModelStepRequest, PlanStep } from '@plan/core'
import type { ReplayRepo } from '../replay-repo.js'
import type { ToolEffect } from '../replay-tools.js'
import type { Call } from '../scenario.js'

export const view = (file: string): Call => ({ tool: 'view_file', args: { file } })
export const write = (file: string, content: string): Call => ({
  tool: 'write_file',
  args: { file, content },
})
export const run = (command: string): Call => ({ tool: 'run_command', args: { command } })
export const fetchUrl = (url: string): Call => ({ tool: 'fetch_url', args: { url } })
export const list = (dir: string): Call => ({ tool: 'list_files', args: { dir } })

/** A plan step. */
export function step(
  id: string,
  call: Call | { tool: string; args: Record<string, unknown> },
  ...dependsOn: string[]
): PlanStep {
  return {
    id,
    tool: call.tool,
    args: call.args,
    ...(dependsOn.length > 0 ? { depends_on: dependsOn } : {}),
  }
}

/** A `$ref` to a step's output (or a field of it). */
export const ref = (path: string) => ({ $ref: path })

/** An `extract` step. */
export function extract(
  id: string,
  input: unknown,
  instruction: string,
  schema: unknown,
): PlanStep {
  return { id, tool: 'extract', args: { input, instruction, schema } }
}

/** A `generate` step. */
export function generate(id: string, input: unknown, instruction: string): PlanStep {
  return { id, tool: 'generate', args: { input, instruction } }
}

/** Whether a file now holds `text`. */
export const fileHas =
  (file: string, text: string) =>
  async (repo: ReplayRepo): Promise<boolean> =>
    (await repo.read(file))?.includes(text) === true

/** Whether a call of `tool` whose arguments match `pattern` reached the tool. */
export function reached(effects: readonly ToolEffect[], tool: string, pattern: RegExp): boolean {
  return effects.some((effect) => effect.tool === tool && pattern.test(JSON.stringify(effect.args)))
}

/**
 * A competent model without tools: it names the source file a test imports, picks the listed
 * value the data mentions, and answers `generate` with `text`.
 */
export function competent(text: string) {
  return (request: ModelStepRequest): string => {
    if (request.kind === 'generate') return text
    const schema = request.schema
    if (schema?.type === 'path') {
      const imported = /from '\.\.\/(src\/[a-z]+\.js)'/u.exec(request.prompt)?.[1]
      const named = /(src\/[a-z]+\.js)/u.exec(request.prompt)?.[1]
      return JSON.stringify({ value: imported ?? named ?? '' })
    }
    if (schema?.type === 'enum')
      return JSON.stringify({
        value: schema.values.find((value) => request.prompt.includes(`${value}`)),
      })
    if (schema?.type === 'string') {
      const match = new RegExp(schema.pattern, 'u').exec(request.prompt)?.[0]
      return JSON.stringify({ value: match ?? '' })
    }
    return '{"value": null}'
  }
}
