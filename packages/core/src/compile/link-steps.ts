import { createIssue, int32At, itemAt, stringAt } from '@plan/shell/common'
import { checkExtractionStep } from '../extract/check-extraction-step.js'
import type { StepReference } from '../types/compiled-plan.js'
import type { ResolvedPolicy } from '../types/resolved-policy.js'
import type { ArgumentWalk, Path } from './argument-walk.js'
import { checkArgumentsInto } from './check-arguments.js'
import type { CommandCheck } from './command-check.js'
import { PlanLinks } from './plan-links.js'
import type { StepReading } from './read-step.js'
import { ReferenceParts } from './reference-parts.js'
import { quote, stepPath } from './step-path.js'
import { StepTools } from './step-tools.js'
import { suggest } from './suggest.js'

/** What linking reads: the steps as read, the policy, and where issues go. */
export interface LinkInput extends StepReading {
  readonly policy: ResolvedPolicy
  readonly checkCommand: CommandCheck
}

// From this many dependency ids on, they are looked up in one batch.
const BATCH_LOOKUPS = 64

type MutableWalk = { -readonly [K in keyof ArgumentWalk]: ArgumentWalk[K] }

/**
 * Adds `node`'s `depends_on` entries as edges, reporting those naming no step or the step itself;
 * `targetNodes[slot]`, if given, is the node `table.dependencyIds[slot]` names, or -1.
 */
function linkDependencies(
  input: LinkInput,
  links: PlanLinks,
  index: number,
  node: number,
  targetNodes: Int32Array | undefined,
) {
  const { table, ids, base, issues } = input
  const stepId = itemAt(table.ids, index)
  const first = int32At(table.dependencyStart, index)
  const end = int32At(table.dependencyStart, index + 1)
  for (let slot = first; slot < end; slot += 1) {
    const target = stringAt(table.dependencyIds, slot)
    const targetNode = targetNodes === undefined ? ids.position(target) : int32At(targetNodes, slot)
    if (targetNode >= 0 && target !== stepId) {
      links.addDependency(node, targetNode)
      continue
    }
    const path = stepPath(base, index, table.dependenciesKey(index), slot - first)
    if (targetNode < 0) {
      const guess = suggest(target, ids.keys())
      const message = `Step ${quote(stepId)} depends on unknown step ${quote(target)}.`
      const hint =
        guess === undefined
          ? 'Depend only on ids of steps in this plan.'
          : `Did you mean ${quote(guess)}?`
      issues.push(createIssue('undefined_dependency', message, path, hint, stepId))
    } else {
      const message = `Step ${quote(target)} depends on itself.`
      const hint = 'Remove the step from its own depends_on.'
      issues.push(createIssue('self_dependency', message, path, hint, stepId))
    }
  }
}

/**
 * The second pass over a plan's steps: checks each tool and arguments (copied, references
 * recorded) and makes each step with a good id a graph node; issues go to `input.issues` in order.
 */
export function linkSteps(input: LinkInput): PlanLinks {
  const { policy, table, base, issues } = input
  const links = new PlanLinks(table)
  const tools = new StepTools(policy, base, issues)
  const references: StepReference[] = []
  const targets: number[] = []
  // Shared by every step: the argument check copies it into the paths of the issues it reports.
  const argsBase: Path = [...base, 0, 'args']
  const walk: MutableWalk = {
    scope: policy.scope,
    checkCommand: input.checkCommand,
    plan: { ids: input.ids, idAt: table.ids, parts: new ReferenceParts(), targets },
    stepId: undefined,
    base: argsBase,
    issues,
    references,
    owned: input.owned === true,
  }
  // Ids enter the index in plan order, as steps become graph nodes: an id's position in it is
  // its node. A large plan's dependency ids are all looked up at once, before linking.
  const count = table.dependencyCount
  const targetNodes = count < BATCH_LOOKUPS ? undefined : new Int32Array(count)
  if (targetNodes !== undefined) input.ids.positions(table.dependencyIds, count, targetNodes)
  for (let index = 0; index < table.size; index += 1) {
    const stepId = table.ids[index]
    const toolPolicy = tools.resolve(table.tools[index], index, stepId)
    walk.stepId = stepId
    argsBase[base.length] = index
    // The plan's references accumulate: this step's are those from here on.
    const firstReference = references.length
    const args =
      toolPolicy === undefined ? undefined : checkArgumentsInto(toolPolicy, table.args[index], walk)
    if (toolPolicy?.output?.extract === true) {
      const problem = checkExtractionStep(table.args[index], stepPath(base, index), stepId)
      if (problem !== undefined) issues.push(problem)
    }
    const node = int32At(links.nodeOf, index)
    // A step with no valid id is no graph node.
    if (node < 0 || stepId === undefined) continue
    linkDependencies(input, links, index, node, targetNodes)
    // Unknown and self references were reported (and left out) by the argument check.
    links.addReferences(node, references, targets, firstReference)
    links.close(node, stepId, toolPolicy, args)
  }
  return links
}
