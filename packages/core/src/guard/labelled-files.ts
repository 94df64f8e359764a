import type { PlanIssue } from '@plan/shell/common'
import { checkLabelledRun } from '../flow/check-labelled-run.js'
import { roleValues } from '../taint/role-values.js'
import { workspaceRelative } from '../taint/workspace-relative.js'
import type { CompiledStep } from '../types/compiled-plan.js'
import type { JsonObject } from '../types/json-value.js'
import { commandParser } from '../util/command-parser.js'
import { toolFacts } from '../util/tool-facts.js'
import type { GuardParts } from './guard-parts.js'

/**
 * Refuses a command that would execute a workspace file written from untrusted data, as
 * `untrusted_flow` in every mode: the call's arguments do not show the data it would run, so it is
 * never put to a human (`onRefuse: 'ask'`); the user runs the command after reading the files.
 */
export function checkRunsLabelledFiles(
  parts: GuardParts,
  step: CompiledStep,
  args: JsonObject,
): PlanIssue[] {
  const tool = parts.compiler.policy.tools.get(step.tool)
  if (tool === undefined || !toolFacts(tool).commands) return []
  return checkLabelledRun(
    tool,
    args,
    step.id,
    parts.flow.labelledFiles(),
    commandParser(parts.compiler),
    'untrusted_flow',
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
  // A tool that writes no path labels nothing: most tools, read once.
  if (tool === undefined || !toolFacts(tool).writes) return
  const written = roleValues(tool, args).filter((entry) => entry.role === 'write')
  if (written.length === 0) return
  const sources = parts.flow.callSources(step, parts.run.mode === 'turn')
  if (sources.length === 0 && !clears) return
  for (const { value } of written) {
    const relative = workspaceRelative(value, roots)
    if (relative !== undefined) parts.flow.labelFile(relative, sources)
  }
}
