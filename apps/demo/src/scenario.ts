import type { PlanIssue } from '@plan/core'
import type { StepMark } from '@plan/render'

/** A call an agent proposed that the guard stopped. */
export interface StoppedCall {
  readonly tool: string
  readonly args: unknown
  readonly code: string
  readonly message: string
}

/** What one scenario did, printed and written as a report. */
export interface ScenarioResult {
  readonly name: string
  readonly title: string
  /** `@plan/core` alone, or the framework adapter it ran through. */
  readonly via: 'core' | '@plan/langchain' | '@plan/ai-sdk'
  readonly model: string
  /** What must happen for the demo to pass. */
  readonly expectation: string
  readonly passed: boolean
  /** The plan (or the calls the agent proposed, as a plan) to draw. */
  readonly plan: unknown
  readonly issues: readonly PlanIssue[]
  readonly status: Readonly<Record<string, StepMark>>
  readonly ran: readonly string[]
  readonly stopped: readonly StoppedCall[]
  readonly notes: readonly string[]
}
