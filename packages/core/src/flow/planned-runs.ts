import { GENERATE_TOOL } from '../extract/model-step-policy.js'
import { readExtractionSchema } from '../extract/read-extraction-schema.js'
import { createIssue } from '../issues/create-issue.js'
import type { ArgSpec, ToolPolicy } from '../schema/policy-schema.js'
import { matchesGlob } from '../taint/match-glob.js'
import { workspaceRelative } from '../taint/workspace-relative.js'
import type { StepReference } from '../types/compiled-plan.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { labelledFilesRun } from './check-labelled-run.js'
import type { ParseCommand } from './data-sources.js'
import { argumentName, outputName, toolDeclassifies, toolOutputIsUntrusted } from './trust-rules.js'
import type { IndexedFlow } from './untrusted-flow-issues.js'
import { commandSource, workspaceExecutor } from './workspace-executors.js'

/** A plan as {@link plannedRunIssues} reads it: the indexed flow, arguments and dependencies. */
export interface PlannedRunsInput extends IndexedFlow {
  /** The planned arguments of each step, `$ref` objects in place. */
  readonly args: readonly Readonly<JsonObject>[]
  /** Step `n` depends on `dependencyTarget[dependencyStart[n] .. dependencyStart[n + 1])`. */
  readonly dependencyStart: ArrayLike<number>
  readonly dependencyTarget: ArrayLike<number>
  /** The tool name of a step, as the plan gives it. */
  readonly toolName: (step: number) => string
  /** Reads a command into its argv; undefined for one the command policy refuses. */
  readonly parseCommand: ParseCommand
}

/** A string argument by role, as far as the plan fixes it. */
interface PlannedValue {
  readonly role: 'read' | 'write' | 'command' | 'url'
  readonly path: readonly (string | number)[]
  /** The literal value; undefined when a `$ref` sets it at run time. */
  readonly literal?: string
  /** Workspace globs the value stays within (a path `extract` step's `within`). */
  readonly globs?: readonly string[]
}

/** A workspace file (or glob of files) a planned step writes with untrusted data. */
interface PlannedWrite {
  readonly writer: number
  readonly file: string
  readonly sources: readonly string[]
  /** The flow from the untrusted output to the write, for the issue. */
  readonly flow: readonly string[]
}

const ANY_FILE = '**'

function roleOf(spec: ArgSpec): PlannedValue['role'] | undefined {
  if (spec.type === 'command') return 'command'
  if (spec.type === 'path') return spec.access === 'write' ? 'write' : 'read'
  if (spec.type === 'string' && spec.format === 'url') return 'url'
  return undefined
}

function declaresCommand(spec: ArgSpec): boolean {
  return spec.type === 'command' || (spec.type === 'array' && declaresCommand(spec.items))
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
  if (scalar?.type === 'enum' && scalar.values.every((value) => typeof value === 'string'))
    return scalar.values as readonly string[]
  return undefined
}

/** The role-typed string arguments of one step, literal or set by a reference. */
function plannedValues(input: PlannedRunsInput, node: number): PlannedValue[] {
  const tool = input.tools[node]
  const args = input.args[node]
  if (tool === undefined || args === undefined) return []
  const references = input.references[node] as readonly StepReference[]
  const first = input.referenceStart[node] as number
  const out: PlannedValue[] = []
  const visit = (spec: ArgSpec, value: JsonValue, path: (string | number)[]): void => {
    if (spec.type === 'array' && Array.isArray(value)) {
      value.forEach((item, index) => {
        visit(spec.items, item, [...path, index])
      })
      return
    }
    const role = roleOf(spec)
    if (role === undefined) return
    if (typeof value === 'string') {
      out.push({ role, path, literal: value })
      return
    }
    const slot = references.findIndex((reference) => samePath(reference.path, path))
    if (slot < 0) return
    const target = input.referenceTarget[first + slot] as number
    const globs = target < 0 ? undefined : extractedGlobs(input.tools[target], input.args[target])
    out.push({ role, path, ...(globs === undefined ? {} : { globs }) })
  }
  for (const name of Object.keys(tool.args))
    if (Object.hasOwn(args, name))
      visit(tool.args[name] as ArgSpec, args[name] as JsonValue, [name])
  return out
}

/** The workspace files (or globs) a planned value may name; `**` when the plan does not fix it. */
function filesOf(value: PlannedValue, roots: readonly string[]): string[] {
  if (value.literal !== undefined) {
    const relative = workspaceRelative(value.literal, roots)
    return relative === undefined ? [] : [relative]
  }
  return [...(value.globs ?? [ANY_FILE])]
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

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase()
  } catch {
    return '?'
  }
}

/** Where a step's own output comes from, as `outputSources` names it at run time. */
function ownSources(input: PlannedRunsInput, node: number, writes: PlannedWrites) {
  const tool = input.tools[node]
  const name = input.toolName(node)
  const toolName = `tool:${name}`
  if (tool === undefined) return [toolName]
  // A model step's output comes from its inputs, which its references name.
  if (tool.output?.extract === true || name === GENERATE_TOOL) return []
  const sources: string[] = []
  for (const value of plannedValues(input, node)) {
    if (value.role === 'command') {
      const argv = value.literal === undefined ? undefined : input.parseCommand(value.literal)
      sources.push(argv === undefined ? toolName : commandSource(argv))
    } else if (value.role === 'url')
      sources.push(value.literal === undefined ? toolName : `url:${hostOf(value.literal)}`)
    else {
      const files = filesOf(value, input.policy.scope.roots)
      if (files.length === 0) sources.push(toolName)
      // A tool named for listing returns names, not contents.
      const lists = value.role === 'read' && /list|tree/iu.test(name)
      for (const file of files) {
        sources.push(lists ? `list:${file}` : `file:${file}`)
        sources.push(...writes.sourcesFor(file))
      }
    }
  }
  return sources.length === 0 ? [toolName] : sources
}

/**
 * The files the plan's steps write with untrusted data, with the sources of that data: labels
 * travel along `$ref` edges in topological order as they do at run time (a step's output
 * carries its own sources and those of the untrusted outputs it reads; a declassifying step's
 * output is trusted), and a step with a write path that reads untrusted output labels the
 * files it may write with the sources of what it reads.
 */
function plannedWrites(input: PlannedRunsInput): PlannedWrite[] {
  const { order, tools, references, referenceStart, referenceTarget } = input
  const sources: (readonly string[] | undefined)[] = new Array(input.ids.length)
  const writes = new PlannedWrites()
  for (let position = 0; position < order.length; position += 1) {
    const node = order[position] as number
    const tool = tools[node]
    const carried: string[] = []
    let flow: string[] | undefined
    const first = referenceStart[node] as number
    const end = referenceStart[node + 1] as number
    for (let slot = first; slot < end; slot += 1) {
      const target = referenceTarget[slot] as number
      const found = target < 0 ? undefined : sources[target]
      if (found === undefined) continue
      carried.push(...found)
      const reference = (references[node] as readonly StepReference[])[slot - first]
      if (flow === undefined && reference !== undefined)
        flow = [
          outputName(input.ids[target] as string, reference.field),
          argumentName(input.ids[node] as string, reference.path),
        ]
    }
    if (tool !== undefined && toolDeclassifies(tool)) continue
    const untrusted =
      tool === undefined || carried.length > 0 || toolOutputIsUntrusted(input.policy.policy, tool)
    if (!untrusted) continue
    const own = ownSources(input, node, writes)
    sources[node] = [...new Set([...own, ...carried])]
    if (flow === undefined) continue
    const written = [...new Set(carried)]
    for (const value of plannedValues(input, node))
      if (value.role === 'write')
        for (const file of filesOf(value, input.policy.scope.roots))
          writes.add({ writer: node, file, sources: written, flow })
  }
  return writes.all
}

// Most steps whose dependencies are walked to order writes; past it, every run counts as later.
const ORDERING_BUDGET = 1 << 24

/** Which steps may run after a writer: any that is neither the writer nor one of its dependencies. */
class Ordering {
  readonly #before = new Map<number, Uint8Array>()
  #spent = 0

  constructor(private readonly input: PlannedRunsInput) {}

  mayRunAfter(writer: number, later: number): boolean {
    if (writer === later) return false
    const before = this.#dependenciesOf(writer)
    return before === undefined || before[later] !== 1
  }

  /** The transitive dependencies of a step, or undefined past the budget (fail closed). */
  #dependenciesOf(writer: number): Uint8Array | undefined {
    const known = this.#before.get(writer)
    if (known !== undefined) return known
    const { dependencyStart, dependencyTarget, ids } = this.input
    this.#spent += ids.length
    if (this.#spent > ORDERING_BUDGET) return undefined
    const before = new Uint8Array(ids.length)
    const stack = [writer]
    while (stack.length > 0) {
      const node = stack.pop() as number
      const end = dependencyStart[node + 1] as number
      for (let edge = dependencyStart[node] as number; edge < end; edge += 1) {
        const target = dependencyTarget[edge] as number
        if (target < 0 || before[target] === 1) continue
        before[target] = 1
        stack.push(target)
      }
    }
    this.#before.set(writer, before)
    return before
  }
}

function runIssue(
  input: PlannedRunsInput,
  node: number,
  value: PlannedValue,
  found: readonly { file: string; sources: readonly string[]; write: PlannedWrite }[],
): PlanIssue {
  const shown = found
    .slice(0, 3)
    .map(({ file, sources }) => `${file} (from ${sources.slice(0, 3).join(', ')})`)
  const more = found.length > 3 ? ` and ${found.length - 3} more` : ''
  const first = found[0] as (typeof found)[number]
  const command = argumentName(input.ids[node] as string, value.path)
  const writer = input.ids[first.write.writer] as string
  return {
    ...createIssue(
      'untrusted_flow',
      `${JSON.stringify(value.literal)} would execute files the plan writes from untrusted data: ${shown.join('; ')}${more}.`,
      [...input.pathOf(node), 'args', ...value.path],
      `Running a file written from untrusted data runs that data. Drop the run or run it before step "${writer}" writes, write the file from trusted values, or narrow a path "extract" step's "within" to files of the command's own kind (e.g. "src/**/*.js"); the user can run the command after reviewing the file.`,
      input.ids[node] as string,
    ),
    flow: [...first.write.flow, first.file, command],
  }
}

/**
 * Reports every planned command that would execute a workspace file an earlier or parallel
 * step of the same plan writes from untrusted data (a generated test that `npm test` finds, a
 * script that `npm run` or `node` runs): the plan-time side of the run-time check on labelled
 * files, so an approved plan holds no such step. What the data and its sources are follows the
 * run-time rules (data only from code of the command's own kind adds nothing it does not run);
 * a path the plan leaves to an `extract` step counts as any file its `within` globs allow.
 */
export function plannedRunIssues(input: PlannedRunsInput): PlanIssue[] {
  const runners: { node: number; value: PlannedValue; argv: readonly string[] }[] = []
  const takesCommands = new Map<ToolPolicy, boolean>()
  for (let node = 0; node < input.ids.length; node += 1) {
    const tool = input.tools[node]
    if (tool === undefined) continue
    let takes = takesCommands.get(tool)
    if (takes === undefined) {
      takes = Object.values(tool.args).some(declaresCommand)
      takesCommands.set(tool, takes)
    }
    if (!takes) continue
    for (const value of plannedValues(input, node)) {
      if (value.role !== 'command' || value.literal === undefined) continue
      const argv = input.parseCommand(value.literal)
      if (argv !== undefined && workspaceExecutor(argv) !== undefined)
        runners.push({ node, value, argv })
    }
  }
  if (runners.length === 0) return []
  const writes = plannedWrites(input)
  if (writes.length === 0) return []
  const order = new Ordering(input)
  const issues: PlanIssue[] = []
  for (const { node, value, argv } of runners) {
    const found: { file: string; sources: readonly string[]; write: PlannedWrite }[] = []
    for (const write of writes) {
      const runs = labelledFilesRun(argv, new Map([[write.file, write.sources]]))
      if (runs.length === 0 || !order.mayRunAfter(write.writer, node)) continue
      for (const run of runs) found.push({ file: run.file, sources: run.sources, write })
      // The issue names a few files; more add nothing to it.
      if (found.length > 3) break
    }
    if (found.length > 0) issues.push(runIssue(input, node, value, found))
  }
  return issues
}
