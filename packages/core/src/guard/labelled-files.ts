import { checkLabelledRun } from '../flow/check-labelled-run.js'
import { type ParseCommand, roleValues, workspaceRelative } from '../flow/data-sources.js'
import { workspaceExecutor } from '../flow/workspace-executors.js'
import type { CompiledStep } from '../types/compiled-plan.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanIssue } from '../types/plan-issue.js'
import type { GuardParts } from './guard-parts.js'

/** A command's argv as the command policy reads it; undefined for one it refuses. */
export function commandParser(compiler: PlanCompiler): ParseCommand {
  return (command) => {
    const checked = compiler.checkCommand(command)
    return checked.allowed ? checked.argv : undefined
  }
}

/**
 * Refuses a command that would execute a workspace file written from untrusted data: the
 * same decision as for the data itself (`tainted_run` under `trust.tainted` in per-turn mode,
 * so a human may allow it; `untrusted_flow` otherwise).
 */
export function checkRunsLabelledFiles(
  parts: GuardParts,
  step: CompiledStep,
  args: JsonObject,
  tainted: boolean,
): PlanIssue[] {
  const tool = parts.compiler.policy.tools.get(step.tool)
  if (tool === undefined) return []
  return checkLabelledRun(
    tool,
    args,
    step.id,
    parts.flow.labelledFiles(),
    commandParser(parts.compiler),
    tainted ? 'tainted_run' : 'untrusted_flow',
  )
}

/**
 * Labels the files an allowed call writes with the sources of the untrusted data it carries
 * (in per-turn mode, everything the model has seen), relative to `roots`; a write that carries
 * none clears the label, unless `clears` is false (a write that has not been allowed yet).
 */
export function labelWrittenFiles(
  parts: GuardParts,
  step: CompiledStep,
  args: JsonObject,
  roots: readonly string[],
  clears = true,
): void {
  const tool = parts.compiler.policy.tools.get(step.tool)
  if (tool === undefined) return
  const written = roleValues(tool, args).filter((entry) => entry.role === 'write')
  if (written.length === 0) return
  const sources = parts.flow.callSources(step, parts.run.mode === 'turn')
  if (sources.length === 0 && !clears) return
  for (const { value } of written) {
    const relative = workspaceRelative(value, roots)
    if (relative !== undefined) parts.flow.labelFile(relative, sources)
  }
}

/** The `writtenFiles` a command tool reported in its output, or undefined when it reported none. */
function reportedWrites(output: JsonValue | undefined): string[] | undefined {
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return undefined
  const files = output.writtenFiles
  if (!Array.isArray(files)) return undefined
  return files.filter((file): file is string => typeof file === 'string')
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
 * Labels the files a finished command wrote, as its tool reported them (`writtenFiles` in the
 * output of the reference `run_command`), when the call carried untrusted data or names a
 * labelled file: with the sources of that data, of the labelled files it names and of the
 * workspace files it names (`file:README.md` for `cp README.md test/a.test.js`), so running
 * them later is a sink as for a write tool's files. A report only adds labels, so output that
 * claims a write cannot clear one. A test runner or build tool run with no arguments but its
 * subcommand writes what the workspace's code makes (it was allowed to run none of the
 * labelled files it could run), and labels nothing.
 */
export function labelCommandWrites(
  parts: GuardParts,
  step: CompiledStep,
  output: JsonValue | undefined,
): void {
  const written = reportedWrites(output)
  if (written === undefined || written.length === 0) return
  const tool = parts.compiler.policy.tools.get(step.tool)
  if (tool === undefined) return
  const commands = roleValues(tool, step.args).filter((entry) => entry.role === 'command')
  if (commands.length === 0 && !Object.values(tool.args).some((spec) => spec.type === 'command'))
    return
  const argv =
    commands.length === 1 ? commandParser(parts.compiler)(commands[0]?.value ?? '') : undefined
  const executor = argv === undefined ? undefined : workspaceExecutor(argv)
  if (argv !== undefined && argv.length <= 2 && executor !== undefined && executor.family !== 'git')
    return
  const sources = [...parts.flow.callSources(step, parts.run.mode === 'turn')]
  if (argv !== undefined) sources.push(...namedLabels(argv, parts.flow.labelledFiles()))
  if (sources.length === 0) return
  if (argv === undefined) sources.push(`tool:${step.tool}`)
  else sources.push(...namedFiles(argv, parts.compiler.policy.scope.roots))
  for (const file of written)
    parts.flow.labelFile(file, [...(parts.flow.labelledFiles().get(file) ?? []), ...sources])
}
