import { describe, expect, it } from 'vitest'
import { stepsFromToolCalls } from './steps-from-tool-calls.js'

describe('stepsFromToolCalls', () => {
  it('should make one step per call with the call id as step id', () => {
    const steps = stepsFromToolCalls([
      { toolCallId: 'call_1', toolName: 'view_file', input: { file: 'a.md' } },
      { toolCallId: 'toolu-2', toolName: 'run_command', input: { command: 'ls' } },
    ])

    expect(steps).toEqual([
      { id: 'call_1', tool: 'view_file', args: { file: 'a.md' } },
      { id: 'toolu-2', tool: 'run_command', args: { command: 'ls' } },
    ])
  })

  it('should replace call ids that are not valid step ids and make duplicates unique', () => {
    const steps = stepsFromToolCalls([
      { toolCallId: 'call.1', toolName: 'a', input: {} },
      { toolCallId: 'same', toolName: 'b', input: {} },
      { toolCallId: 'same', toolName: 'c', input: {} },
      { toolCallId: 'x'.repeat(300), toolName: 'd', input: {} },
    ])

    expect(steps.map((step) => step.id)).toEqual(['call_1', 'same', 'call_3', 'call_4'])
  })

  it('should keep a later call its own id when an earlier call would fall back to it', () => {
    const steps = stepsFromToolCalls([
      { toolCallId: 'bad id', toolName: 'a', input: {} },
      { toolCallId: 'call_1', toolName: 'b', input: {} },
      { toolCallId: 'call_1', toolName: 'c', input: {} },
    ])

    expect(steps.map((step) => step.id)).toEqual(['call_1_2', 'call_1', 'call_3'])
  })

  it('should keep the input unchanged, so the compiler judges it', () => {
    const steps = stepsFromToolCalls([
      { toolCallId: 'c1', toolName: 'view_file', input: 'not an object' },
    ])

    expect(steps[0]?.args).toBe('not an object')
  })
})
