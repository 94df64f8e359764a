import type { PlanIssue } from '@plan/shell/common'
import { describe, expect, it } from 'vitest'
import { refusalText, reviewText } from './refusal-text.js'

const outside: PlanIssue = {
  code: 'path_outside_workspace',
  message: 'The path leaves the workspace.',
  stepId: 'call_1',
  path: ['steps', 0, 'args', 'file'],
  hint: 'Use a path inside /srv/repo.',
}

describe('refusalText', () => {
  it('should say the call did not run and locate each issue at the call, with its hint', () => {
    expect(refusalText({ tool: 'view_file', issues: [outside] })).toBe(
      '@plan denied the call to "view_file"; it did not run.\n' +
        '- path_outside_workspace at file (step "call_1"): The path leaves the workspace. Hint: Use a path inside /srv/repo.',
    )
  })

  it('should leave out an empty location and add what is allowed on its own line', () => {
    const text = refusalText({
      tool: 'run',
      issues: [{ code: 'budget_exceeded', message: 'Too many calls.', path: [] }],
      allowed: 'Allowed: the tools view_file.',
    })
    expect(text).toBe(
      '@plan denied the call to "run"; it did not run.\n- budget_exceeded: Too many calls.\nAllowed: the tools view_file.',
    )
  })

  it('should say when the whole turn was rejected as one plan', () => {
    const text = refusalText({ tool: 'view_file', issues: [outside], turnRejected: true })
    expect(text).toContain('the plan was rejected, so none of them ran.')
  })

  it('should quote a tool name as JSON, so a hostile name cannot break the line', () => {
    const text = refusalText({ tool: 'a"\nb', issues: [] })
    expect(text.split('\n')[0]).toBe('@plan denied the call to "a\\"\\nb"; it did not run.')
  })

  it('should leave out what is allowed when the run is tainted, as the issue says it', () => {
    const text = refusalText({
      tool: 'run',
      issues: [{ code: 'tainted_run', message: 'Only view_file is still allowed.', path: [] }],
      allowed: 'Allowed: the tools view_file, run.',
    })
    expect(text).not.toContain('Allowed:')
  })
})

describe('reviewText', () => {
  const tainted: PlanIssue = {
    code: 'tainted_run',
    message: 'The run has read untrusted output (file:README.md); "curl" is not allowed now.',
    path: ['args', 'command'],
  }

  it("should give the reason with its untrusted source and the call's place in the turn", () => {
    expect(reviewText({ issues: [tainted], index: 2, count: 3 })).toBe(
      '@plan refused this call (2 of 3 in this turn) because the run has read untrusted output:\n' +
        '- tainted_run at command: The run has read untrusted output (file:README.md); "curl" is not allowed now.\n' +
        'Allow it once?',
    )
  })

  it('should leave out the place of a call asked about alone', () => {
    expect(reviewText({ issues: [tainted], index: 1, count: 1 })).not.toContain('of 1')
    expect(reviewText({ issues: [tainted] })).toMatch(/^@plan refused this call because/)
  })
})
