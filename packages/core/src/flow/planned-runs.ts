import { workspaceExecutor } from '@plan/shell'
import { createIssue, itemAt, type PlanIssue, popped } from '@plan/shell/common'
import { readExtractionSchema } from '../extract/read-extraction-schema.js'
import type { ToolPolicy } from '../schema/policy-schema.js'
import { matchesGlob } from '../taint/match-glob.js'
import { type RoleValue, visitRoles } from '../taint/role-values.js'
import type { JsonObject } from '../types/json-value.js'
import { toolFacts } from '../util/tool-facts.js'
import { describeRuns, type LabelledRun, labelledFilesRun } from './check-labelled-run.js'
import {
  ANY_FILE,
  filesOf,
  outputSources,
  type ParseCommand,
  type SourceValue,
} from './data-sources.js'
import { type PlanGraph, PlanOrder } from './planned-order.js'
import { argumentName, outputName, toolDeclassifies, toolOutputIsUntrusted } from './trust-rules.js'
import type { IndexedFlow } from './untrusted-flow-issues.js'

/** A plan as {@link plannedRunIssues} reads it: the indexed flow, arguments and dependencies. */
export interface PlannedRunsInput extends IndexedFlow, Omit<PlanGraph, 'size'> {
  /** The planned arguments of each step, `$ref` objects in place. */
  readonly args: readonly Readonly<JsonObject>[]
  /** The tool name of a step, as the plan gives it. */
  readonly toolName: (step: number) => string
  /** Reads a command into its argv; undefined for one the command policy refuses. */
  readonly parseCommand: ParseCommand
}

/** A string argument by role, as far as the plan fixes it (`value` only when it is literal). */
interface PlannedValue extends SourceValue, Pick<RoleValue, 'path'> {}

/** A workspace file (or glob of files) a planned step writes with untrusted data. */
interface PlannedWrite {
  readonly writer: number
  readonly file: string
  readonly sources: readonly string[]
  /** The flow from the untrusted output to the write, for the issue. */
  readonly flow: readonly string[]
}

function samePath(left: readonly (string | number)[], right: readonly (string | number)[]) {
  return left.length === right.length && left.every((part, index) => part === right[index])
}

/**
 * The paths (or globs) an extraction step's answer stays within: the `within` globs of a path
 * schema, the values of an enum written into the plan; undefined for anything else.
 */
function extractedGlobs(tool: ToolPolicy | undefined, args: Readonly<JsonObject> | undefined) {
  if (tool?.output?.extract !== true || args === undefined) return undefined
  const schema = readExtractionSchema(args.schema)
  const scalar = schema?.type === 'array' ? schema.items : schema
  if (scalar?.type === 'path') return scalar.within ?? [ANY_FILE]
  if (scalar?.type === 'enum') {
    const values = scalar.values.filter((value) => typeof value === 'string')
    if (values.length === scalar.values.length) return values
  }
  return undefined
}

/** The role-typed string arguments of one step, literal or set by a reference. */
function plannedValues(input: PlannedRunsInput, node: number): PlannedValue[] {
  const tool = input.tools[node]
  const args = input.args[node]
  if (tool === undefined || args === undefined) return []
  const references = itemAt(input.references, node)
  const first = itemAt(input.referenceStart, node)
  const out: PlannedValue[] = []
  visitRoles(tool, args, (role, value, path) => {
    if (typeof value === 'string') {
      out.push({ role, path, value })
      return
    }
    const slot = references.findIndex((reference) => samePath(reference.path, path))
    if (slot < 0) return
    const target = itemAt(input.referenceTarget, first + slot)
    const globs = target < 0 ? undefined : extractedGlobs(input.tools[target], input.args[target])
    out.push({ role, path, ...(globs === undefined ? {} : { globs }) })
  })
  return out
}

const GLOB = /[*?[\]{}]/u

/** The planned writes so far, found by file: exact paths in a table, globs in a list. */
class PlannedWrites {
  readonly all: PlannedWrite[] = []
  readonly #byFile = new Map<string, PlannedWrite[]>()
  readonly #globs: PlannedWrite[] = []

  add(write: PlannedWrite): void {
    this.all.push(write)
    if (GLOB.test(write.file)) this.#globs.push(write)
    else {
      const same = this.#byFile.get(write.file)
      if (same === undefined) this.#byFile.set(write.file, [write])
      else same.push(write)
    }
  }

  /** The sources of the labelled files a read of `file` (a path or a glob) may bring back. */
  sourcesFor(file: string): string[] {
    const found: string[] = []
    const matching = GLOB.test(file)
      ? this.all.filter(
          (write) =>
            file === ANY_FILE ||
            write.file === ANY_FILE ||
            matchesGlob(write.file, file) ||
            matchesGlob(file, write.file),
        )
      : [
          ...(this.#byFile.get(file) ?? []),
          ...this.#globs.filter(
            (write) => write.file === ANY_FILE || matchesGlob(file, write.file),
          ),
        ]
    for (const write of matching) found.push(...write.sources)
    return found
  }
}

/** Where a step's own output comes from, as `outputSources` names it at run time. */
function ownSources(input: PlannedRunsInput, node: number, writes: PlannedWrites) {
  const { roots } = input.policy.scope
  const fileSources = (file: string) => writes.sourcesFor(file)
  const context = { roots, parseCommand: input.parseCommand, fileSources }
  return outputSources(input.toolName(node), input.tools[node], plannedValues(input, node), context)
}

/** Order-walk role per tool: 0 declassifies, 1 untrusted output, 2 relays input; +4 writes. */
function toolRole(
  input: PlannedRunsInput,
  tool: ToolPolicy,
  roles: Map<ToolPolicy, number>,
): number {
  const output = toolDeclassifies(tool)
    ? 0
    : toolOutputIsUntrusted(input.policy.policy, tool)
      ? 1
      : 2
  // A tool with a write path labels the files its step writes.
  const role = output + (toolFacts(tool).writes ? 4 : 0)
  roles.set(tool, role)
  return role
}

/**
 * Which steps' outputs are untrusted (labels travel along `$ref` edges in topological order; a
 * declassifying step's is trusted) and which write files from it: a cheap pass before any source.
 */
function untrustedSteps(input: PlannedRunsInput): { untrusted: Uint8Array; writers: number[] } {
  const { order, tools, referenceStart, referenceTarget } = input
  const untrusted = new Uint8Array(input.ids.length)
  const writers: number[] = []
  const roles = new Map<ToolPolicy, number>()
  for (let position = 0; position < order.length; position += 1) {
    const node = itemAt(order, position)
    const tool = tools[node]
    const role = tool === undefined ? 1 : (roles.get(tool) ?? toolRole(input, tool, roles))
    let carries = false
    const end = itemAt(referenceStart, node + 1)
    for (let slot = itemAt(referenceStart, node); slot < end && !carries; slot += 1) {
      const target = itemAt(referenceTarget, slot)
      carries = target >= 0 && untrusted[target] === 1
    }
    if (carries && role >= 4) writers.push(node)
    const own = role % 4
    if (own === 1 || (own === 2 && carries)) untrusted[node] = 1
  }
  return { untrusted, writers }
}

/** The steps whose sources a write's label needs: the writers and what they read, transitively. */
function neededSteps(input: PlannedRunsInput, untrusted: Uint8Array, writers: readonly number[]) {
  const needed = new Uint8Array(input.ids.length)
  const stack = [...writers]
  for (const writer of writers) needed[writer] = 1
  while (stack.length > 0) {
    const node = popped(stack)
    const end = itemAt(input.referenceStart, node + 1)
    for (let slot = itemAt(input.referenceStart, node); slot < end; slot += 1) {
      const target = itemAt(input.referenceTarget, slot)
      if (target < 0 || untrusted[target] !== 1 || needed[target] === 1) continue
      needed[target] = 1
      stack.push(target)
    }
  }
  return needed
}

/**
 * The files the plan's steps write with untrusted data, with its sources, worked out as at run
 * time: a step's output carries its own sources and those of the untrusted outputs it reads; a step
 * with a write path that reads untrusted output labels the files it may write with those sources.
 * Sources are worked out only for the steps a write's label needs.
 */
function plannedWrites(input: PlannedRunsInput): PlannedWrite[] {
  const { untrusted, writers } = untrustedSteps(input)
  if (writers.length === 0) return []
  const needed = neededSteps(input, untrusted, writers)
  const { order, references, referenceStart, referenceTarget } = input
  const sources: (readonly string[] | undefined)[] = new Array(input.ids.length)
  const writes = new PlannedWrites()
  for (let position = 0; position < order.length; position += 1) {
    const node = itemAt(order, position)
    if (needed[node] !== 1) continue
    const carried: string[] = []
    let flow: string[] | undefined
    const first = itemAt(referenceStart, node)
    const end = itemAt(referenceStart, node + 1)
    for (let slot = first; slot < end; slot += 1) {
      const target = itemAt(referenceTarget, slot)
      if (target < 0 || untrusted[target] !== 1) continue
      carried.push(...(sources[target] ?? []))
      const reference = itemAt(references, node)[slot - first]
      if (flow === undefined && reference !== undefined)
        flow = [
          outputName(itemAt(input.ids, target), reference.field),
          argumentName(itemAt(input.ids, node), reference.path),
        ]
    }
    sources[node] = [...new Set([...ownSources(input, node, writes), ...carried])]
    if (flow === undefined) continue
    const written = [...new Set(carried)]
    for (const value of plannedValues(input, node))
      if (value.role === 'write')
        for (const file of filesOf(value.value, value.globs, input.policy.scope.roots))
          writes.add({ writer: node, file, sources: written, flow })
  }
  return writes.all
}

function runIssue(
  input: PlannedRunsInput,
  node: number,
  value: PlannedValue,
  found: readonly FoundRun[],
): PlanIssue {
  const first = itemAt(found, 0)
  const command = argumentName(itemAt(input.ids, node), value.path)
  const writer = itemAt(input.ids, first.write.writer)
  return {
    ...createIssue(
      'untrusted_flow',
      `${JSON.stringify(value.value)} would execute files the plan writes from untrusted data: ${describeRuns(found, false)}.`,
      [...input.pathOf(node), 'args', ...value.path],
      `Running a file written from untrusted data runs that data. Drop the run or run it before step "${writer}" writes, write the file from trusted values, or narrow a path "extract" step's "within" to files of the command's own kind (e.g. "src/**/*.js"); the user can run the command after reviewing the file.`,
      itemAt(input.ids, node),
    ),
    flow: [...first.write.flow, first.file, command],
  }
}

/**
 * Reports each planned command that would execute a workspace file an earlier or parallel step
 * writes from untrusted data (a generated test `npm test` finds, a script `node` runs): the
 * plan-time side of the run-time check on labelled files, so an approved plan holds none. Data and
 * sources follow the run-time rules (data only from code of the command's own kind adds nothing it
 * does not run); a path left to an `extract` step may be any file its `within` globs allow.
 */
export function plannedRunIssues(input: PlannedRunsInput): PlanIssue[] {
  const writes = plannedWrites(input)
  if (writes.length === 0) return []
  const runners = plannedRunners(input)
  if (runners.length === 0) return []
  const order = new PlanOrder({ ...input, size: input.ids.length })
  // Per family of runner, the writes it would execute, in topological order of their writers.
  const byFamily = new Map<string, FoundRun[]>()
  const issues: PlanIssue[] = []
  for (const { node, value, argv, family } of runners) {
    let found = byFamily.get(family)
    if (found === undefined) {
      found = runsOf(argv, writes, order)
      byFamily.set(family, found)
    }
    const later = mayRunAfter(found, node, order)
    if (later.length > 0) issues.push(runIssue(input, node, value, later))
  }
  return issues
}

/** A planned write a runner would execute, with the sources that make running it new. */
interface FoundRun extends LabelledRun {
  readonly write: PlannedWrite
}

/** The steps whose commands execute workspace files, with the family of each. */
function plannedRunners(input: PlannedRunsInput) {
  const runners: { node: number; value: PlannedValue; argv: readonly string[]; family: string }[] =
    []
  for (let node = 0; node < input.ids.length; node += 1) {
    if (!toolFacts(input.tools[node]).commands) continue
    for (const value of plannedValues(input, node)) {
      if (value.role !== 'command' || value.value === undefined) continue
      const argv = input.parseCommand(value.value)
      const executor = argv === undefined ? undefined : workspaceExecutor(argv)
      if (argv !== undefined && executor !== undefined)
        runners.push({ node, value, argv, family: executor.family })
    }
  }
  return runners
}

/** The writes a command (by its argv) would execute, in topological order of their writers. */
function runsOf(argv: readonly string[], writes: readonly PlannedWrite[], order: PlanOrder) {
  const found: FoundRun[] = []
  for (const write of writes)
    for (const run of labelledFilesRun(argv, new Map([[write.file, write.sources]])))
      found.push({ file: run.file, sources: run.sources, write })
  return found.sort(
    (left, right) => order.position(left.write.writer) - order.position(right.write.writer),
  )
}

/**
 * The found runs whose writer the runner may follow: a writer earlier in the topological
 * order is never one of the runner's dependents; a later one is, only if it depends on it.
 */
function mayRunAfter(found: readonly FoundRun[], runner: number, order: PlanOrder): FoundRun[] {
  const position = order.position(runner)
  const before: FoundRun[] = []
  for (const run of found) {
    if (order.position(run.write.writer) >= position || before.length > 3) break
    before.push(run)
  }
  if (before.length > 0 || found.length === 0) return before
  const dependents = order.dependentsOf(runner)
  return found
    .filter((run) => run.write.writer !== runner && dependents?.[run.write.writer] !== 1)
    .slice(0, 4)
}
