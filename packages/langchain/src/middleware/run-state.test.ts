import { PlanError } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { keepFreshestRunState, type PlanGuardRunState, readRunState } from './run-state.js'

const saved: PlanGuardRunState = {
  version: 1,
  runId: 'run-1',
  revision: 3,
  guard: { version: 1 } as unknown as PlanGuardRunState['guard'],
  turn: 2,
  submittedTurn: 2,
  submittedKey: 'key',
  turnSteps: { c1: 'c1' },
  rejected: { c2: [{ code: 'unknown_tool', message: 'No.', path: ['steps', 1], hint: 'Ask.' }] },
  exit: null,
}

function corruptField(value: unknown, runId = 'run-1'): unknown {
  try {
    readRunState(value, runId)
    return undefined
  } catch (error) {
    expect(PlanError.isInstance(error)).toBe(true)
    const issue = (error as PlanError).issues[0]
    expect(issue?.code).toBe('state_corrupt')
    return issue?.path[1]
  }
}

describe('readRunState', () => {
  it('should read back a state the middleware wrote, through JSON, keeping issue details', () => {
    const read = readRunState(JSON.parse(JSON.stringify(saved)), 'run-1')
    expect(read).toEqual(saved)
    expect(read.rejected.c2?.[0]?.hint).toBe('Ask.')
  })

  it('should name the broken field of a state that does not check out', () => {
    expect(corruptField(saved, 'run-2')).toBe('runId')
    expect(corruptField({ ...saved, version: 2 })).toBe('version')
    expect(corruptField('not a state')).toBe('version')
    expect(corruptField({ ...saved, revision: -1 })).toBe('revision')
    expect(corruptField({ ...saved, turn: 1.5 })).toBe('turn')
    expect(corruptField({ ...saved, turnSteps: { c1: 7 } })).toBe('turnSteps')
    expect(corruptField({ ...saved, rejected: { c2: [{ code: 'x' }] } })).toBe('rejected')
    expect(corruptField({ ...saved, exit: { issues: [], compilation: 'yes' } })).toBe('exit')
    expect(corruptField({ ...saved, guard: [] })).toBe('guard')
  })
})

describe('keepFreshestRunState', () => {
  it('should keep the higher revision of one run, and a new run over an old one', () => {
    const later = { ...saved, revision: 4 }
    expect(keepFreshestRunState(later, saved)).toBe(later)
    expect(keepFreshestRunState(saved, later)).toBe(later)
    const other = { ...saved, runId: 'run-2', revision: 1 }
    expect(keepFreshestRunState(later, other)).toBe(other)
    expect(keepFreshestRunState(later, undefined)).toBe(later)
  })
})
