import type { PlanIssue, ResolvedPolicy, ToolPolicy } from '@plan/core'
import { asRecord } from '../guard/message-fields.js'
import type { ServerNames } from './server-names.js'
import { shownAnnotations } from './shown-annotations.js'
import { pinnedDefinition, toolDefinitionHash } from './tool-definition.js'
import { toolInputSchema } from './tool-input-schema.js'

/** A tool the server listed that the client was not shown, and why. */
export interface WithheldTool {
  /** Its name in the policy (qualified by the server's name, if any). */
  readonly tool: string
  /** The pin of the definition the server listed. */
  readonly definitionHash: string
  /** The policy's pin of it; null when it has none. */
  readonly pin: string | null
  /** What the server listed of it (the members the pin covers), for a reviewer. */
  readonly definition: Record<string, unknown>
  readonly issue: PlanIssue
}

/** A `tools/list` result as the client gets it, and the tools held back from it. */
export interface ToolListResult {
  readonly result: Record<string, unknown>
  readonly withheld: readonly WithheldTool[]
}

const PIN_HINT =
  'Review the tool as the server now lists it, then run `plan-mcp pin` to record it in the policy (or remove the tool from the policy).'

function pinIssue(tool: string, hash: string, pin: string | undefined): PlanIssue {
  return pin === undefined
    ? {
        code: 'tool_not_pinned',
        message: `The tool "${tool}" has no pin in the policy, which requires one (mcp.requirePins); it is withheld (its definition: ${hash}).`,
        hint: PIN_HINT,
        path: ['tools', tool, 'pin'],
      }
    : {
        code: 'tool_definition_changed',
        message: `The server's definition of the tool "${tool}" (${hash}) differs from its pin (${pin}); it is withheld until the policy is updated.`,
        hint: PIN_HINT,
        path: ['tools', tool, 'pin'],
      }
}

/** The hash of a definition that could not be hashed (nested too deeply): it matches no pin. */
const UNREADABLE = 'sha256:unreadable'

/** A listed tool's pin, or undefined when its definition cannot be hashed. */
function hashOf(listed: Record<string, unknown>): string | undefined {
  try {
    return toolDefinitionHash(listed)
  } catch {
    return undefined
  }
}

function unreadableIssue(tool: string): PlanIssue {
  return {
    code: 'tool_definition_changed',
    message: `The server's definition of the tool "${tool}" could not be read to compare with a pin (it is nested too deeply); it is withheld.`,
    hint: 'Ask the server’s authors for a plainer schema, or remove the tool from the policy.',
    path: ['tools', tool, 'pin'],
  }
}

/**
 * What one session's server has listed of its tools, checked against the policy: which tools
 * the client may see (listed by the policy, their definitions matching their pins) and in
 * which shape (the policy's argument schema), and which were withheld. A call to a tool with a
 * pin (or, under `mcp.requirePins`, any tool) is allowed only while the server's last listing
 * of it matched; `notifications/tools/list_changed` forgets every listing until the next.
 */
export class ToolListing {
  private readonly shown = new Map<string, string>()
  private readonly withheld = new Map<string, WithheldTool>()
  private readonly reported = new Set<string>()

  constructor(
    private readonly policy: ResolvedPolicy,
    readonly names: ServerNames,
  ) {}

  /** True when calls of the policy's `tool` depend on the server's listing of it. */
  private isPinChecked(entry: ToolPolicy): boolean {
    return entry.pin !== undefined || this.policy.policy.mcp?.requirePins === true
  }

  /**
   * One page of a `tools/list` result for the client: only the tools the policy lists whose
   * definitions match their pins, named as the policy names them, with the policy's argument
   * schema (and description, when it gives one); `withheld` holds those newly held back.
   */
  list(result: unknown): ToolListResult {
    const listed = asRecord(result)
    const tools = Array.isArray(listed.tools) ? listed.tools : []
    const shown: unknown[] = []
    const names = new Set<unknown>()
    const withheld: WithheldTool[] = []
    for (const tool of tools) {
      // a name listed twice is judged once: the client never sees two definitions of one tool
      if (names.has(asRecord(tool).name)) continue
      names.add(asRecord(tool).name)
      const entry = this.shownEntry(tool, withheld)
      if (entry !== undefined) shown.push(entry)
    }
    return { result: { ...listed, tools: shown }, withheld }
  }

  private shownEntry(tool: unknown, withheld: WithheldTool[]): unknown {
    const listed = asRecord(tool)
    if (typeof listed.name !== 'string') return undefined
    const name = this.names.qualify(listed.name)
    const entry = this.policy.tools.get(name)
    if (entry === undefined) return undefined
    const hash = hashOf(listed)
    if (hash === undefined || (this.isPinChecked(entry) && entry.pin !== hash)) {
      this.shown.delete(name)
      const shown = hash ?? UNREADABLE
      const held: WithheldTool = {
        tool: name,
        definitionHash: shown,
        pin: entry.pin ?? null,
        definition: hash === undefined ? {} : pinnedDefinition(listed),
        issue: hash === undefined ? unreadableIssue(name) : pinIssue(name, hash, entry.pin),
      }
      this.withheld.set(name, held)
      if (!this.reported.has(`${name} ${shown}`)) {
        this.reported.add(`${name} ${shown}`)
        withheld.push(held)
      }
      return undefined
    }
    this.withheld.delete(name)
    this.shown.set(name, hash)
    const annotations = shownAnnotations(entry, listed.annotations)
    return {
      ...listed,
      name,
      ...(entry.description === undefined ? {} : { description: entry.description }),
      inputSchema: toolInputSchema(entry, listed.inputSchema),
      ...(annotations === undefined ? {} : { annotations }),
    }
  }

  /** The server said its tools changed: no listing counts until the next `tools/list`. */
  changed(): void {
    this.shown.clear()
  }

  /**
   * Why a call of the policy's `tool` may not go now, or undefined: its last listing was
   * withheld, or it has not been listed since the session began or the server's tools changed.
   */
  callIssue(tool: string): PlanIssue | undefined {
    const entry = this.policy.tools.get(tool)
    if (entry === undefined || this.shown.has(tool)) return undefined
    const withheld = this.withheld.get(tool)
    if (withheld !== undefined) return withheld.issue
    if (!this.isPinChecked(entry)) return undefined
    return {
      code: 'tool_not_listed',
      message: `The tool "${tool}" has not been listed with a definition matching its pin since the session began or the server's tools last changed.`,
      hint: 'List the tools (tools/list), then call the tool again.',
      path: ['name'],
    }
  }

  /** True when calls of `tool` wait on a new listing (never listed, or listed before a change). */
  needsListing(tool: string): boolean {
    return this.callIssue(tool)?.code === 'tool_not_listed'
  }
}
