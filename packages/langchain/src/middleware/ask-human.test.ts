import type { PlanIssue } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { mayAskHuman } from './ask-human.js'

const issue = (code: PlanIssue['code']): PlanIssue => ({ code, message: code, path: ['url'] })

describe('mayAskHuman', () => {
  it('should ask about a call whose arguments show all it would do (tainted_run)', () => {
    expect(mayAskHuman([issue('tainted_run')], 'ask')).toBe(true)
    expect(mayAskHuman([issue('tainted_run')], 'deny')).toBe(false)
  })

  it('should never ask about a URL after a sensitive read, alone or beside a host refusal', () => {
    expect(mayAskHuman([issue('untrusted_flow')], 'ask')).toBe(false)
    expect(mayAskHuman([issue('tainted_run'), issue('untrusted_flow')], 'ask')).toBe(false)
  })
})
