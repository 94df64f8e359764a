import { createPlanCompiler, type PlanCompiler } from '@plan/core'
import { createIssue } from '@plan/shell/common'
import { beforeAll, describe, expect, it } from 'vitest'
import { issuesByStep } from './issues-by-step.js'
import { toMermaid } from './to-mermaid.js'
import { toText } from './to-text.js'

let compiler: PlanCompiler
beforeAll(async () => {
  compiler = await createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: { t: {} },
  })
})

const plan = {
  steps: [
    { id: 'a', tool: 't' },
    { id: 'a', tool: 't' },
    { id: 'b', tool: 't', depends_on: ['c'] },
    { id: 'c', tool: 't', depends_on: ['d'] },
    { id: 'd', tool: 't', depends_on: ['b'] },
    { id: 'e', tool: 't' },
  ],
}

function stepBlock(text: string, line: number): string {
  return text
    .split('\n')
    .slice(line, line + 2)
    .join('\n')
}

describe('issuesByStep', () => {
  it('should put an issue under the step its path points into, not the first with its id', () => {
    const duplicate = createIssue('duplicate_step_id', 'again', ['steps', 1, 'id'], undefined, 'a')
    const sorted = issuesByStep([duplicate], ['a', 'a'])
    expect(sorted.byIndex.get(1)).toEqual([duplicate])
    expect(sorted.byIndex.has(0)).toBe(false)
  })

  it('should read the index of a bare array plan and fall back to the step id', () => {
    const atIndex = createIssue('unknown_tool', 'x', [2, 'tool'])
    const byId = createIssue('step_failed', 'x', ['args'], undefined, 'b')
    const loose = createIssue('budget_exceeded', 'x', ['steps'])
    const sorted = issuesByStep([atIndex, byId, loose], ['a', 'b', 'c'])
    expect(sorted.byIndex.get(2)).toEqual([atIndex])
    expect(sorted.byIndex.get(1)).toEqual([byId])
    expect(sorted.planIssues).toEqual([loose])
  })

  it('should follow the step id when the path points at a step with another id', () => {
    // found in a turn's own batch, where the call was steps[0], drawn in a plan of every call
    const fromTurn = createIssue('command_pipeline', 'x', ['steps', 0, 'args'], undefined, 'c')
    const sorted = issuesByStep([fromTurn], ['a', 'b', 'c'])
    expect(sorted.byIndex.get(2)).toEqual([fromTurn])
    expect(sorted.byIndex.has(0)).toBe(false)
  })

  it('should keep the path when the step id names no step of the plan', () => {
    const stray = createIssue('unknown_tool', 'x', ['steps', 1, 'tool'], undefined, 'zz')
    expect(issuesByStep([stray], ['a', 'b']).byIndex.get(1)).toEqual([stray])
  })

  it('should collect every member of a cycle', () => {
    const cycle = { ...createIssue('cyclic_dependency', 'x', ['steps', 0]), cycle: ['b', 'c', 'b'] }
    expect([...issuesByStep([cycle], ['b', 'c', 'd']).onCycle].sort()).toEqual(['b', 'c'])
  })
})

describe('toText', () => {
  it('should print duplicate_step_id under the second step with that id', () => {
    const result = compiler.validate(plan)
    expect(result.success).toBe(false)
    const lines = toText(plan, { issues: result.issues }).split('\n')
    const first = lines.findIndex((line) => line.includes(' a  t'))
    expect(lines[first]).toContain('✓ a')
    expect(stepBlock(lines.join('\n'), first + 1)).toMatch(/✗ a {2}t\n\s+duplicate_step_id/)
  })

  it('should mark every member of a cycle', () => {
    const result = compiler.validate(plan)
    const text = toText(plan, { issues: result.issues })
    for (const id of ['b', 'c', 'd']) expect(text).toMatch(new RegExp(`✗ ${id} {2}t`))
    expect(text).toContain('✓ e  t')
  })
})

// read_auth ⇄ migrate_auth form a cycle; run_tests waits on it; lint depends on nothing
const blocked = [
  { id: 'read_auth', tool: 't', depends_on: ['migrate_auth'] },
  { id: 'migrate_auth', tool: 't', depends_on: ['read_auth'] },
  { id: 'run_tests', tool: 't', depends_on: ['migrate_auth'] },
  { id: 'report', tool: 't', depends_on: ['run_tests'] },
  { id: 'lint', tool: 't' },
]

describe('a step that depends on a cycle', () => {
  it('should be drawn as skipped, directly or through another step, not approved', () => {
    const result = compiler.validate(blocked)
    expect(result.success).toBe(false)
    const text = toText(blocked, { issues: result.issues })
    expect(text).toMatch(/- run_tests {2}t/)
    expect(text).toMatch(/- report {2}t/)
    expect(text).toContain('✓ lint  t')
    const mermaid = toMermaid(blocked, { issues: result.issues })
    expect(mermaid).toMatch(/s2\[.*:::skipped/)
    expect(mermaid).toMatch(/s3\[.*:::skipped/)
    expect(mermaid).toMatch(/s4\[.*:::approved/)
  })

  it('should keep a run-time status over the drawn mark', () => {
    const result = compiler.validate(blocked)
    const text = toText(blocked, { issues: result.issues, status: { run_tests: 'pending' } })
    expect(text).toMatch(/· run_tests {2}t/)
  })
})

describe('toMermaid', () => {
  it('should paint every member of a cycle red', () => {
    const result = compiler.validate(plan)
    const mermaid = toMermaid(plan, { issues: result.issues })
    for (const key of ['s2', 's3', 's4'])
      expect(mermaid).toMatch(new RegExp(`${key}\\[.*:::rejected`))
    expect(mermaid).toMatch(/s5\[.*:::approved/)
  })
})
