import type { ArgSpec, ToolPolicy } from '../schema/policy-schema.js'

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

/** True when one of `specs`, or the items of a list of them at any depth, is one `is` accepts. */
function declares(specs: readonly ArgSpec[], is: (spec: ArgSpec) => boolean): boolean {
  return specs.some((spec) => is(spec) || (spec.type === 'array' && declares([spec.items], is)))
}

/** The facts of a tool's argument declarations (none for a tool the policy does not list). */
export function toolFacts(tool: ToolPolicy | undefined): ToolFacts {
  if (tool === undefined) return NO_FACTS
  let facts = known.get(tool)
  if (facts === undefined) {
    const specs = Object.values(tool.args)
    facts = Object.freeze({
      specs: tool.args,
      paths: declares(specs, (spec) => spec.type === 'path'),
      writes: declares(specs, (spec) => spec.type === 'path' && spec.access === 'write'),
      urls: declares(specs, (spec) => spec.type === 'string' && spec.format === 'url'),
      commands: declares(specs, (spec) => spec.type === 'command'),
    })
    known.set(tool, facts)
  }
  return facts
}
