import type { AuditSink, DecisionEvent, PlanIssue, PlanStep, PolicyInput } from '@plan/core'

/** One tool call the model makes, the same in every framework. */
export interface ModelCall {
  readonly tool: 'view_file' | 'write_file' | 'run_command'
  readonly args: Readonly<Record<string, string>>
}

/** A run to drive through each adapter: a policy, an approved plan or none, the model's calls. */
export interface Scenario {
  /** The policy over `root`. */
  readonly policy: (root: string) => PolicyInput
  /** Plan mode when given; else each call is checked as a plan of its own turn. */
  readonly plan?: readonly PlanStep[] | undefined
  /** One call per model turn, in order. */
  readonly calls: readonly ModelCall[]
  /** LangChain's and the AI SDK's `maskTools` (MCP shows what the policy lists). Default true. */
  readonly maskTools?: boolean | undefined
}

/** A call decision as an adapter reports it. */
export interface ObservedCall {
  /** The framework's id of the call: `call_<n>` in LangChain and the AI SDK, JSON-RPC's in MCP. */
  readonly callId: string | undefined
  readonly tool: string
  readonly args: unknown
  readonly allowed: boolean
  readonly stepId: string | undefined
  readonly codes: readonly string[]
}

/** A turn's batch of calls checked as one plan (LangChain and the AI SDK; MCP has no turns). */
export interface ObservedTurn {
  readonly callIds: readonly string[]
  readonly allowed: boolean
  readonly codes: readonly string[]
}

/** What a run through one adapter did: its decisions and the tools that ran. */
export interface Outcome {
  readonly calls: readonly ObservedCall[]
  readonly turns: readonly ObservedTurn[]
  /** The audit log's events, each as its type and what it names (no hashes, no times). */
  readonly audit: readonly AuditedEvent[]
  /** `tool:argument` per execution, the workspace root written `<root>`. */
  readonly ran: readonly string[]
}

/** An audit event as its type, the tool and step it names, and its issue codes. */
export interface AuditedEvent {
  readonly type: string
  readonly tool: unknown
  readonly stepId: unknown
  readonly codes: readonly string[]
}

/** An audit sink that keeps each event as an {@link AuditedEvent}. */
export function auditTrail(): { readonly audit: AuditSink; readonly trail: AuditedEvent[] } {
  const trail: AuditedEvent[] = []
  const audit: AuditSink = {
    write(event) {
      const named = event as { tool?: unknown; stepId?: unknown; issues?: readonly PlanIssue[] }
      const codes = named.issues?.map((issue) => issue.code) ?? []
      trail.push({ type: event.type, tool: named.tool, stepId: named.stepId, codes })
    },
  }
  return { audit, trail }
}

/** Collects the decisions an adapter reports to `onDecision`. */
export function decisions(): {
  readonly calls: ObservedCall[]
  readonly turns: ObservedTurn[]
  onDecision(event: DecisionEvent): void
} {
  const calls: ObservedCall[] = []
  const turns: ObservedTurn[] = []
  const onDecision = (event: DecisionEvent) => {
    if (event.kind === 'turn') {
      const codes = event.issues.map((issue) => issue.code)
      turns.push({ callIds: event.callIds, allowed: event.allowed, codes })
    } else calls.push(observe(event))
  }
  return { calls, turns, onDecision }
}

function observe(event: DecisionEvent & { readonly kind: 'call' }): ObservedCall {
  return {
    callId: event.callId,
    tool: event.tool,
    args: event.args,
    allowed: event.allowed,
    stepId: event.stepId,
    codes: event.issues.map((issue) => issue.code),
  }
}

/** Records `tool:argument` with the workspace root left out, so runs in two roots compare. */
export function recorder(root: string): {
  ran: string[]
  record(tool: string, value: string): void
} {
  const ran: string[] = []
  return { ran, record: (tool, value) => ran.push(`${tool}:${value.replaceAll(root, '<root>')}`) }
}
