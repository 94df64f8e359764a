import type { BaseMessage } from '@langchain/core/messages'
import type { PolicyInput } from '@plan/core'
import { createTestWorkspace, testPolicy } from '@plan/core/test'
import { expect } from 'vitest'
import { type RecordingTools, recordingTools } from '../test/recording-tools.js'
import { unansweredToolCalls } from '../test/tool-messages.js'

export { toolMessages } from '../test/tool-messages.js'

/** A test workspace with the recording tools and a policy over it, for this package's tests. */
export interface AgentWorkspace extends RecordingTools {
  readonly root: string
  /** `testPolicy(root, extra)`. */
  policy(extra?: Partial<PolicyInput>): PolicyInput
  /** Deletes the workspace. */
  cleanup(): Promise<void>
}

/** `createTestWorkspace()` of the test kit with `recordingTools(options)` and `testPolicy`. */
export async function createAgentWorkspace(
  options: { readonly delayMs?: number } = {},
): Promise<AgentWorkspace> {
  const workspace = await createTestWorkspace()
  return {
    root: workspace.root,
    ...recordingTools(options),
    policy: (extra = {}) => testPolicy(workspace.root, extra),
    cleanup: () => workspace.remove(),
  }
}

/** Asserts that every tool call of every AI message got exactly one answer, before the next AI turn. */
export function expectEveryCallAnswered(messages: readonly BaseMessage[]): void {
  expect(unansweredToolCalls(messages), 'tool calls without exactly one answer').toEqual([])
}
