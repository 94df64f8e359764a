import { commandReads, workspaceExecutor } from '@plan/shell'
import { createIssue, type PlanIssue } from '@plan/shell/common'
import { roleValues } from '../taint/role-values.js'
import { workspaceRelative } from '../taint/workspace-relative.js'
import type { CompiledStep } from '../types/compiled-plan.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import { commandArgv } from '../util/command-parser.js'
import { toolFacts } from '../util/tool-facts.js'
import type { GuardParts } from './guard-parts.js'

/** What a command call may do to the workspace's files, as far as labels go. */
export type CommandKind =
  | { readonly kind: 'none' }
  | { readonly kind: 'runs'; readonly argv: readonly string[]; readonly plain: boolean }
  | { readonly kind: 'writes'; readonly argv: readonly string[] | undefined }

/** The `writtenFiles` an output (or its MCP `structuredContent`) reports, workspace-relative. */
function reportedWrites(
  output: JsonValue | undefined,
  roots: readonly string[],
): string[] | undefined {
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return undefined
  const structured = output.structuredContent
  const files =
    output.writtenFiles ??
    (typeof structured === 'object' && structured !== null && !Array.isArray(structured)
      ? structured.writtenFiles
      : undefined)
  if (!Array.isArray(files)) return undefined
  return files.flatMap((file) => {
    if (typeof file !== 'string') return []
    // `**` (the workspace could not be compared) stays as it is
    const relative = file === '**' ? file : workspaceRelative(file, roots)
    return relative === undefined || relative === '' ? [] : [relative]
  })
}

/** The sources of the labelled files a command names (a file, or a folder above one). */
function namedLabels(argv: readonly string[], labelled: ReadonlyMap<string, readonly string[]>) {
  const found: string[] = []
  for (const word of argv.slice(1)) {
    const named = word.replace(/^\.\/+/u, '').replace(/\/+$/u, '')
    for (const [file, sources] of labelled)
      if (named === '.' || named === '' || file === named || file.startsWith(`${named}/`))
        found.push(...sources)
  }
  return found
}

/** `file:` sources for the words of a command that name workspace files (what a `cp` copies). */
function namedFiles(argv: readonly string[], roots: readonly string[]): string[] {
  const found: string[] = []
  for (const word of argv.slice(1)) {
    if (word.startsWith('-') || !/[./]/u.test(word)) continue
    const relative = workspaceRelative(word, roots)
    if (relative !== undefined && relative !== '') found.push(`file:${relative}`)
  }
  return found
}

/**
 * Whether a call runs workspace files (a test runner, an interpreter), may write files (any
 * other command that does not only print; one the policy cannot read counts too), or neither.
 * A runner given only its program and subcommand (`npm test`, `pytest`, `make`) is `plain`: it
 * writes what the workspace's code makes, and was allowed to run none of the labelled files it
 * could run; one given more words may write what they say.
 */
export function commandKind(parts: GuardParts, step: CompiledStep, args: JsonObject): CommandKind {
  const tool = parts.compiler.policy.tools.get(step.tool)
  // Without a command argument there is no command to run: most tools, read once.
  if (tool === undefined || !toolFacts(tool).commands) return { kind: 'none' }
  const commands = roleValues(tool, args).filter((entry) => entry.role === 'command')
  if (commands.length === 0) {
    const declares = Object.values(tool.args).some((spec) => spec.type === 'command')
    return declares ? { kind: 'writes', argv: undefined } : { kind: 'none' }
  }
  const argv =
    commands.length === 1 ? commandArgv(parts.compiler, commands[0]?.value ?? '') : undefined
  if (argv === undefined) return { kind: 'writes', argv }
  const executor = workspaceExecutor(argv)
  if (executor !== undefined && executor.family !== 'git')
    return { kind: 'runs', argv, plain: argv.length <= 2 }
  if (commandReads(argv).readOnly) return { kind: 'none' }
  return { kind: 'writes', argv }
}

/**
 * The sources a command's written files get: the untrusted data the call carries, the labelled and
 * workspace files it names (`file:README.md` for `cp README.md test/a.test.js`); empty when it
 * carries no untrusted data and names no labelled file (a trusted write, as a write tool's is).
 */
function writeSources(parts: GuardParts, step: CompiledStep, argv: readonly string[] | undefined) {
  const sources = [...parts.flow.callSources(step, parts.run.mode === 'turn')]
  if (argv !== undefined) sources.push(...namedLabels(argv, parts.flow.labelledFiles()))
  if (sources.length === 0) return sources
  if (argv === undefined) sources.push(`tool:${step.tool}`)
  else sources.push(...namedFiles(argv, parts.compiler.policy.scope.roots))
  return [...new Set(sources)]
}

/**
 * Refuses a race: a command that runs workspace files while one that may write them from untrusted
 * data runs (its writes are labelled only when it ends), or such a writer while a runner runs.
 */
export function checkCommandsInFlight(
  parts: GuardParts,
  step: CompiledStep,
  found: CommandKind,
  tainted: boolean,
): PlanIssue[] {
  if (found.kind === 'none') return []
  const code = tainted ? 'tainted_run' : 'untrusted_flow'
  const hint = 'Run this command in a later turn, after the other one has finished.'
  const running = [...parts.flow.commands.writers].filter(([id]) => id !== step.id)
  if (found.kind === 'runs' && running.length > 0) {
    const [[writer, sources] = ['', []]] = running
    const message = `Step "${writer}" is still running a command that may write files from untrusted data (from ${sources.slice(0, 3).join(', ')}), and this command could execute them.`
    return [createIssue(code, message, [], hint, step.id)]
  }
  if (found.kind !== 'writes' || !parts.flow.commands.executorRunning) return []
  if (writeSources(parts, step, found.argv).length === 0) return []
  const message =
    'A command that executes workspace files is running, and this one may write files from untrusted data that it could execute.'
  return [createIssue(code, message, [], hint, step.id)]
}

/** Notes an allowed command as running (a writer with its sources, or a runner of files). */
export function noteCommandStarted(parts: GuardParts, step: CompiledStep, found: CommandKind) {
  if (found.kind === 'runs') parts.flow.commands.started(step.id, 'runs')
  else if (found.kind === 'writes') {
    const sources = writeSources(parts, step, found.argv)
    if (sources.length > 0) parts.flow.commands.started(step.id, 'writes', sources)
  }
}

/**
 * Labels the files a finished call wrote, as its tool reported them (`writtenFiles` in its output,
 * as the reference `run_command` returns it, or in an MCP result's `structuredContent`; relative or
 * absolute), with {@link writeSources}: running them later is a sink as for a write tool's files.
 * Any tool may report: one without a command argument labels with the sources of its data. A report
 * only adds labels (output that claims a write cannot clear one); a `plain` runner labels nothing.
 */
export function labelCommandWrites(
  parts: GuardParts,
  step: CompiledStep,
  output: JsonValue | undefined,
): void {
  parts.flow.commands.ended(step.id)
  const written = reportedWrites(output, parts.compiler.policy.scope.roots)
  if (written === undefined || written.length === 0) return
  const found = commandKind(parts, step, step.args)
  if (found.kind === 'runs' && found.plain) return
  // A command that only reads labels nothing: what changed meanwhile is another call's.
  const tool = parts.compiler.policy.tools.get(step.tool)
  const commandTool =
    tool === undefined || Object.values(tool.args).some((spec) => spec.type === 'command')
  if (found.kind === 'none' && commandTool) return
  const sources = writeSources(parts, step, found.kind === 'none' ? undefined : found.argv)
  if (sources.length === 0) return
  for (const file of written)
    parts.flow.labelFile(file, [...(parts.flow.labelledFiles().get(file) ?? []), ...sources])
}
