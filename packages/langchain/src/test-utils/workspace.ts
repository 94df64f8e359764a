import type { BaseMessage } from '@langchain/core/messages'
import { expect } from 'vitest'
import { unansweredToolCalls } from '../test/tool-messages.js'

export type { TestWorkspace } from '../test/test-workspace.js'
export { createTestWorkspace } from '../test/test-workspace.js'
export { toolMessages } from '../test/tool-messages.js'

/** Asserts that every tool call of every AI message got exactly one answer, before the next AI turn. */
export function expectEveryCallAnswered(messages: readonly BaseMessage[]): void {
  expect(unansweredToolCalls(messages), 'tool calls without exactly one answer').toEqual([])
}
