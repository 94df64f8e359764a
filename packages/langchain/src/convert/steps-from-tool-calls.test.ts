import { AIMessage } from '@langchain/core/messages'
import { createPlanCompiler } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { stepsFromToolCalls } from './steps-from-tool-calls.js'

describe('stepsFromToolCalls', () => {
  it('should turn each tool call into a step with the call id, tool name and arguments', () => {
    const message = new AIMessage({
      content: '',
      tool_calls: [
        { id: 'call_1', name: 'view_file', args: { file: 'README.md' } },
        { id: 'toolu_02', name: 'run_command', args: { command: 'git status' } },
      ],
    })
    expect(stepsFromToolCalls(message)).toEqual([
      { id: 'call_1', tool: 'view_file', args: { file: 'README.md' } },
      { id: 'toolu_02', tool: 'run_command', args: { command: 'git status' } },
    ])
  })

  it('should return no steps for a message without tool calls', () => {
    expect(stepsFromToolCalls(new AIMessage('hello'))).toEqual([])
  })

  it('should replace missing, invalid and duplicate ids with unique step ids', () => {
    const steps = stepsFromToolCalls({
      tool_calls: [
        { id: 'functions.view:0', name: 'view_file', args: {} },
        { name: 'view_file', args: {} },
        { id: 'call_1', name: 'view_file', args: {} },
        { id: 'call_1', name: 'view_file', args: {} },
      ],
    })
    const ids = steps.map((step) => step.id)
    expect(new Set(ids).size).toBe(4)
    expect(ids[2]).toBe('call_1')
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]+$/)
  })

  it('should give steps that the compiler checks like any plan', async () => {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: { view_file: { args: { file: { type: 'path' } } } },
    })
    const good = compiler.validate({
      steps: stepsFromToolCalls({
        tool_calls: [{ id: 'a', name: 'view_file', args: { file: 'x.md' } }],
      }),
    })
    expect(good.success).toBe(true)
    const bad = compiler.validate({
      steps: stepsFromToolCalls({
        tool_calls: [{ id: 'a', name: 'view_file', args: { file: '../../etc/passwd' } }],
      }),
    })
    expect(bad.issues.map((issue) => issue.code)).toEqual(['path_outside_workspace'])
  })
})
