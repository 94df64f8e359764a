import { workspaceExecutor } from '@plan/shell'
import { createIssue, type IssueCode, type PlanIssue } from '@plan/shell/common'
import type { ToolPolicy } from '../schema/policy-schema.js'
import { roleValues } from '../taint/role-values.js'
import type { JsonObject } from '../types/json-value.js'
import type { ParseCommand } from './data-sources.js'

/** A labelled file a command would run, with the sources that make running it new. */
export interface LabelledRun {
  readonly file: string
  readonly sources: readonly string[]
}

/**
 * The labelled files a command could execute whose data comes from somewhere the command
 * does not already run (a page, a README, another program's output): running the command
 * runs that data. Empty for a command that executes no workspace file.
 */
export function labelledFilesRun(
  argv: readonly string[],
  labelled: ReadonlyMap<string, readonly string[]>,
): LabelledRun[] {
  if (labelled.size === 0) return []
  const executor = workspaceExecutor(argv)
  if (executor === undefined) return []
  const found: LabelledRun[] = []
  for (const [file, sources] of labelled) {
    if (!executor.runs(file)) continue
    const foreign = sources.filter((source) => !executor.alreadyRuns(source))
    if (foreign.length > 0) found.push({ file, sources: foreign })
  }
  return found
}

/** The first three runs for a refusal; `counted` when `runs` are all there are. */
export function describeRuns(runs: readonly LabelledRun[], counted = true): string {
  const shown = runs
    .slice(0, 3)
    .map((run) => `${run.file} (from ${run.sources.slice(0, 3).join(', ')})`)
  const more = runs.length <= 3 ? '' : counted ? ` and ${runs.length - 3} more` : ' and more'
  return `${shown.join('; ')}${more}`
}

/**
 * Refuses a call whose command would execute workspace files this run (or an earlier run of the
 * state) wrote from untrusted data: running a written test runs that data. `code` is the issue's
 * code (the guard's is `untrusted_flow`: the arguments hide the data run, so no human is asked).
 */
export function checkLabelledRun(
  tool: ToolPolicy,
  args: JsonObject,
  stepId: string,
  labelled: ReadonlyMap<string, readonly string[]>,
  parseCommand: ParseCommand,
  code: Extract<IssueCode, 'tainted_run' | 'untrusted_flow'>,
): PlanIssue[] {
  if (labelled.size === 0) return []
  const issues: PlanIssue[] = []
  for (const { role, value: command, path } of roleValues(tool, args)) {
    if (role !== 'command') continue
    const argv = parseCommand(command)
    if (argv === undefined) continue
    const runs = labelledFilesRun(argv, labelled)
    if (runs.length === 0) continue
    issues.push(
      createIssue(
        code,
        `${JSON.stringify(command)} would execute files written from untrusted data: ${describeRuns(runs)}.`,
        ['args', ...path],
        `Show ${runs.map((run) => run.file).join(', ')} to the user and let them run the command, or rewrite the files from the task alone.`,
        stepId,
      ),
    )
  }
  return issues
}
