import { namedByOwnCode, runsAsCode } from '@plan/shell'
import { createIssue, type PlanIssue } from '@plan/shell/common'
import { roleValues } from '../taint/role-values.js'
import { workspaceRelative } from '../taint/workspace-relative.js'
import type { CompiledStep } from '../types/compiled-plan.js'
import type { JsonObject } from '../types/json-value.js'
import type { GuardParts } from './guard-parts.js'

/**
 * In a tainted per-turn run (`trust.tainted`, allowlist mode), a write under an allowed `writes`
 * glob is still refused when the file is one a workspace command would execute (code, a test, a
 * script, a config; not documentation) and the run's context holds data from somewhere that code
 * does not already come from (a page, a README, another program's output): the written code could
 * be the injection's payload (`src/telemetry.js` that posts to a host). Code written from its own
 * ecosystem's code and test output stays allowed. `tainted_run`: the call shows what it writes.
 */
export function checkTaintedCodeWrites(
  parts: GuardParts,
  step: CompiledStep,
  args: JsonObject,
): PlanIssue[] {
  const tool = parts.compiler.policy.tools.get(step.tool)
  if (tool === undefined) return []
  const found = roleValues(tool, args).filter((entry) => entry.role === 'write')
  if (found.length === 0) return []
  const sources = parts.flow.callSources(step, true)
  const issues: PlanIssue[] = []
  for (const { value, path } of found) {
    const relative = workspaceRelative(value, parts.compiler.policy.scope.roots)
    if (relative === undefined || !runsAsCode(relative) || namedByOwnCode(sources, relative))
      continue
    const shown = sources.filter((source) => !namedByOwnCode([source], relative)).slice(0, 4)
    issues.push(
      createIssue(
        'tainted_run',
        `Untrusted output (from ${shown.join(', ')}) is in this run's context, so it may not write code that workspace commands would run; ${JSON.stringify(relative)} is code.`,
        ['args', ...path],
        'Write documentation or notes instead, or finish and tell the user which code change is left for them.',
        step.id,
      ),
    )
  }
  return issues
}
