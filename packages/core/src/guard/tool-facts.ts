import type { ArgSpec, ToolPolicy } from '../schema/policy-schema.js'
import { hasPathArguments, writesPaths } from './path-arguments.js'

/** What the guard needs to know about a tool's declared arguments on every call. */
export interface ToolFacts {
  readonly specs: Readonly<Record<string, ArgSpec>> | undefined
  /** A path-typed argument (possibly inside arrays): checked on disk. */
  readonly paths: boolean
  /** A path argument it writes: a success resets the identical-call counts. */
  readonly writes: boolean
  /** A `format: "url"` string argument (possibly inside arrays): normalised before the call. */
  readonly urls: boolean
  /** A command argument (possibly inside arrays): its call may run or write files. */
  readonly commands: boolean
}

const NO_FACTS: ToolFacts = Object.freeze({
  specs: undefined,
  paths: false,
  writes: false,
  urls: false,
  commands: false,
})

// A tool's policy is immutable once resolved: its facts are worked out once, for every guard.
const known = new WeakMap<ToolPolicy, ToolFacts>()

function hasUrl(spec: ArgSpec): boolean {
  return (
    (spec.type === 'string' && spec.format === 'url') ||
    (spec.type === 'array' && hasUrl(spec.items))
  )
}

function hasCommand(spec: ArgSpec): boolean {
  return spec.type === 'command' || (spec.type === 'array' && hasCommand(spec.items))
}

/** The facts of a tool's argument declarations (none for a tool the policy does not list). */
export function toolFacts(tool: ToolPolicy | undefined): ToolFacts {
  if (tool === undefined) return NO_FACTS
  let facts = known.get(tool)
  if (facts === undefined) {
    const specs = tool.args
    facts = Object.freeze({
      specs,
      paths: hasPathArguments(specs),
      writes: writesPaths(specs),
      urls: Object.values(specs).some(hasUrl),
      commands: Object.values(specs).some(hasCommand),
    })
    known.set(tool, facts)
  }
  return facts
}
