import type { Attributes, Span } from '@opentelemetry/api'
import type { PlanIssue } from '@plan/shell/common'
import type { AuditEvent } from '../types/audit-event.js'
import type { CallDecisionEvent } from '../types/decision-event.js'
import { planTracer, tracingApiLoaded } from './tracing-api.js'

/** What a call's span records of its decision: a `CallDecisionEvent` of any adapter. */
export type TracedCallDecision = Omit<CallDecisionEvent, 'kind' | 'args'>

/** Where a decision was made: core's executor or an adapter. */
export type DecisionSource = 'core' | 'langchain' | 'ai-sdk' | 'mcp'

const BUDGET_CODES = new Set([
  'budget_exhausted',
  'budget_exceeded',
  'deadline_exceeded',
  'replan_loop',
])

const PLAN_LEVEL = new Set(['plan_approved', 'plan_rejected', 'run_stopped'])

/** False if no span can start (usually no OTel API): no recording closure. Never throws. */
function mayTrace(): boolean {
  try {
    return tracingApiLoaded()
  } catch {
    return false
  }
}

/** The span ended in error: its status, and `error.type` (the semantic conventions' attribute). */
function markError(span: Span, type: string, message: string): void {
  span.setAttribute('error.type', type)
  const code = planTracer()?.api.SpanStatusCode.ERROR
  if (code !== undefined) span.setStatus({ code, message })
}

/**
 * Records into a new span, ended afterwards, when a provider records it (a started span that does
 * not record is ended at once). Telemetry never changes a decision, so a failing tracer is ignored.
 */
function inSpan(name: string, record: (span: Span) => void): void {
  try {
    const span = planTracer()?.tracer.startSpan(name)
    if (span?.isRecording() === true) record(span)
    span?.end()
  } catch {
    // A tracer provider that throws loses its spans, nothing else.
  }
}

function issueCodes(issues: readonly PlanIssue[]): string[] {
  return [...new Set(issues.map((issue) => issue.code))]
}

/**
 * One `plan.issue` event per issue; `plan.budget_exhausted` and `plan.sandbox_violation` events
 * as well for the issues of those classes, so a trace query needs no list of codes.
 */
function addIssueEvents(span: Span, issues: readonly PlanIssue[]): void {
  for (const issue of issues) {
    const attributes: Attributes = {
      'plan.issue.code': issue.code,
      'plan.issue.message': issue.message,
      'plan.issue.path': issue.path.map(String).join('.'),
      ...(issue.stepId === undefined ? {} : { 'plan.step.id': issue.stepId }),
    }
    span.addEvent('plan.issue', attributes)
    if (BUDGET_CODES.has(issue.code)) span.addEvent('plan.budget_exhausted', attributes)
    if (issue.code.startsWith('sandbox_')) span.addEvent('plan.sandbox_violation', attributes)
  }
  const first = issues[0]
  if (first !== undefined) markError(span, first.code, `${first.code}: ${first.message}`)
}

/**
 * Records one live call's decision as a GenAI `execute_tool` span (`gen_ai.operation.name`,
 * `gen_ai.tool.name`, `gen_ai.tool.call.id`) with `plan.decision`, `plan.step.id`,
 * `plan.issue.codes` and `plan.source`, and an event per issue. Does nothing (and builds
 * nothing) when no OpenTelemetry tracer provider is registered, and never throws.
 */
export function traceCallDecision(event: TracedCallDecision, source: DecisionSource): void {
  if (mayTrace())
    inSpan(`execute_tool ${event.tool}`, (span) => recordCallDecision(span, event, source))
}

function recordCallDecision(span: Span, event: TracedCallDecision, source: DecisionSource): void {
  span.setAttributes({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': event.tool,
    ...(event.callId === undefined ? {} : { 'gen_ai.tool.call.id': String(event.callId) }),
    'plan.source': source,
    'plan.decision': event.allowed ? 'allowed' : 'denied',
    ...(event.stepId === undefined ? {} : { 'plan.step.id': event.stepId }),
    ...(event.allowed ? {} : { 'plan.issue.codes': issueCodes(event.issues) }),
  })
  addIssueEvents(span, event.issues)
}

function planAttributes(event: AuditEvent): Attributes | undefined {
  if (event.type === 'plan_approved')
    return {
      'plan.decision': 'approved',
      'plan.kind': event.kind,
      'plan.hash': event.planHash,
      'plan.step.count': event.steps,
      'plan.signed': event.signed,
    }
  if (event.type === 'plan_rejected')
    return {
      'plan.decision': 'rejected',
      'plan.kind': event.kind === 'turn' ? 'turn' : 'replan',
      'plan.issue.codes': issueCodes(event.issues),
    }
  if (event.type === 'run_stopped')
    return { 'plan.decision': 'stopped', 'plan.issue.codes': [event.issue.code] }
  return undefined
}

/**
 * Records a guard's plan-level decision: a plan approved or rejected (`validate_plan` span) or
 * a run stopped, e.g. by an exhausted budget (`stop_run` span with a `plan.budget_exhausted`
 * event). `event` may be a function, called only when a provider records the span. Other events
 * are left to {@link traceCallDecision}, which knows the call's id.
 */
export function traceGuardEvent(event: AuditEvent | (() => AuditEvent)): void {
  // a call's events are left to traceCallDecision: they start no loading of the API either
  if (typeof event !== 'function' && !PLAN_LEVEL.has(event.type)) return
  if (mayTrace()) inSpan('validate_plan', (span) => recordGuardEvent(span, event))
}

function recordGuardEvent(span: Span, event: AuditEvent | (() => AuditEvent)): void {
  const resolved = typeof event === 'function' ? event() : event
  const attributes = planAttributes(resolved) ?? {}
  const name = resolved.type === 'run_stopped' ? 'stop_run' : 'validate_plan'
  span.updateName(name)
  span.setAttributes({ 'plan.operation.name': name, 'plan.source': 'core', ...attributes })
  if (resolved.type === 'plan_rejected') addIssueEvents(span, resolved.issues)
  if (resolved.type === 'run_stopped') addIssueEvents(span, [resolved.issue])
}

/** One access the OS sandbox refused (a `CommandViolation` of a command runner). */
export interface SandboxViolation {
  readonly kind: string
  readonly message: string
  readonly target?: string
}

/**
 * Records the accesses the OS sandbox refused to one command: a `run_sandboxed` span with a
 * `plan.sandbox_violation` event per violation (`plan.sandbox.violation.kind`, `.target`,
 * `.message`). Nothing when there is none or no tracer provider is registered.
 */
export function traceSandboxViolations(
  argv: readonly string[],
  violations: readonly SandboxViolation[],
): void {
  if (violations.length > 0 && mayTrace())
    inSpan('run_sandboxed', (span) => recordSandboxViolations(span, argv, violations))
}

function recordSandboxViolations(
  span: Span,
  argv: readonly string[],
  violations: readonly SandboxViolation[],
): void {
  span.setAttributes({
    'plan.operation.name': 'run_sandboxed',
    'plan.source': 'core',
    'plan.sandbox.program': argv[0] ?? '',
    'plan.sandbox.violation.count': violations.length,
  })
  for (const violation of violations) {
    span.addEvent('plan.sandbox_violation', {
      'plan.sandbox.violation.kind': violation.kind,
      'plan.sandbox.violation.message': violation.message,
      ...(violation.target === undefined
        ? {}
        : { 'plan.sandbox.violation.target': violation.target }),
    })
  }
  markError(span, 'sandbox_violation', 'the sandbox refused an access')
}
