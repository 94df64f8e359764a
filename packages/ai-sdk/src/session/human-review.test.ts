import type { PlanIssue } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { humanMayOverrule } from './human-review.js'

const issue = (code: PlanIssue['code']): PlanIssue => ({ code, message: code, path: ['url'] })

describe('humanMayOverrule', () => {
  it('should ask about a call whose arguments show all it would do (tainted_run)', () => {
    expect(humanMayOverrule([issue('tainted_run'), issue('tainted_run')])).toBe(true)
  })

  it('should never ask about a URL after a sensitive read, alone or beside a host refusal', () => {
    expect(humanMayOverrule([issue('untrusted_flow')])).toBe(false)
    expect(humanMayOverrule([issue('tainted_run'), issue('untrusted_flow')])).toBe(false)
    expect(humanMayOverrule([])).toBe(false)
  })
})
