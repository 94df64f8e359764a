import { toDot, toMermaid, toText } from '@plan/render'
import { type CliIo, EXIT_APPROVED, EXIT_REJECTED, UsageError } from '../io.js'
import { loadCompiler } from '../load-compiler.js'
import { readPlanInput } from '../read-input.js'
import { writeWarnings } from '../write-warnings.js'

/** Options of `plan graph`. */
export interface GraphOptions {
  readonly planFile: string
  readonly policyFile: string | undefined
  readonly format: string
  readonly color: boolean
}

/** `plan graph`: draws a plan or a transcript's tool calls (approved or not) as Mermaid, DOT or text. */
export async function runGraph(options: GraphOptions, io: CliIo): Promise<number> {
  const renderers = { mermaid: toMermaid, dot: toDot, text: toText } as const
  if (!Object.hasOwn(renderers, options.format))
    throw new UsageError(
      `unknown --format ${JSON.stringify(options.format)} (mermaid, dot or text)`,
    )
  const { compiler, warnings } = await loadCompiler(options.policyFile, io)
  const { plan } = await readPlanInput(options.planFile, io)
  writeWarnings(io, warnings)
  const result = compiler.validate(plan)
  const render = renderers[options.format as keyof typeof renderers]
  const output = result.success
    ? render(result.plan, { color: options.color })
    : render(plan, { issues: result.issues, color: options.color })
  io.stdout.write(output.endsWith('\n') ? output : `${output}\n`)
  return result.success ? EXIT_APPROVED : EXIT_REJECTED
}
