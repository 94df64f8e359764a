import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { planFromInput } from './plan-from-input.js'

async function fixture(name: string): Promise<unknown> {
  return JSON.parse(await readFile(new URL(`../__fixtures__/${name}`, import.meta.url), 'utf8'))
}

const expectedSteps = [
  { id: 'call_read', tool: 'view_file', args: { file: 'core/auth.py' } },
  { id: 'call_tests', tool: 'view_file', args: { file: 'tests/test_auth.py' } },
  {
    id: 'call_write',
    tool: 'write_file',
    args: { file: 'core/auth.py', content: 'fixed' },
    depends_on: ['call_read', 'call_tests'],
  },
  {
    id: 'call_run',
    tool: 'run_tests',
    args: { suite: 'tests/test_auth.py' },
    depends_on: ['call_write'],
  },
]

describe('planFromInput', () => {
  it('should pass a plan object or a bare array of steps through unchanged', () => {
    const plan = { steps: [{ id: 'a', tool: 't' }] }
    expect(planFromInput(plan)).toEqual({ kind: 'plan', plan })
    expect(planFromInput(plan.steps)).toEqual({ kind: 'plan', plan: plan.steps })
    expect(planFromInput('nonsense')).toEqual({ kind: 'plan', plan: 'nonsense' })
  })

  it('should turn a serialized LangChain agent state into steps, turn after turn', async () => {
    const { kind, plan } = planFromInput(await fixture('langchain-transcript.json'))
    expect(kind).toBe('langchain')
    expect(plan).toEqual({ steps: expectedSteps })
  })

  it('should read a single plain AIMessage with tool_calls', () => {
    const message = {
      type: 'ai',
      tool_calls: [{ id: 'x', name: 'view_file', args: { file: 'a' } }],
    }
    expect(planFromInput(message).plan).toEqual({
      steps: [{ id: 'x', tool: 'view_file', args: { file: 'a' } }],
    })
  })

  it('should turn the steps of an AI SDK generateText result into steps', async () => {
    const { kind, plan } = planFromInput(await fixture('ai-sdk-steps.json'))
    expect(kind).toBe('ai-sdk')
    expect(plan).toEqual({ steps: expectedSteps })
  })

  it('should read AI SDK model messages and skip tool results and text', () => {
    const messages = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'reading' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'view_file', input: { file: 'a' } },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'view_file' }] },
    ]
    expect(planFromInput(messages)).toEqual({
      kind: 'ai-sdk',
      plan: { steps: [{ id: 'c1', tool: 'view_file', args: { file: 'a' } }] },
    })
  })

  it('should name calls whose ids are not valid or unique step ids call_<n>', () => {
    const message = {
      tool_calls: [
        { id: 'same', name: 't', args: {} },
        { id: 'same', name: 't', args: {} },
        { id: 'has space', name: 't', args: {} },
      ],
    }
    const { plan } = planFromInput(message) as { plan: { steps: { id: string }[] } }
    expect(plan.steps.map((step) => step.id)).toEqual(['same', 'call_2', 'call_3'])
  })

  it('should not give a renamed call the id another call of the transcript carries', () => {
    const message = {
      tool_calls: [
        { id: 'has space', name: 't', args: {} },
        { id: 'call_1', name: 't', args: {} },
      ],
    }
    const { plan } = planFromInput(message) as { plan: { steps: { id: string }[] } }
    expect(plan.steps.map((step) => step.id)).toEqual(['call_1_2', 'call_1'])
  })
})
