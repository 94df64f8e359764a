import { createPlanCompiler, type PlanCompiler } from '@plan/core'
import { beforeAll, describe, expect, it } from 'vitest'
import { toDot } from './to-dot.js'
import { toMermaid } from './to-mermaid.js'
import { toText } from './to-text.js'

let compiler: PlanCompiler
beforeAll(async () => {
  compiler = await createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: {
      view_file: { args: { file: { type: 'path' } } },
      write_file: { args: { file: { type: 'path', access: 'write' } } },
    },
  })
})

const good = [
  { id: 'step_1', tool: 'view_file', args: { file: 'core/auth.py' } },
  { id: 'step_2', tool: 'write_file', args: { file: 'core/auth.py' }, depends_on: ['step_1'] },
]
const cyclic = [
  { id: 'step_1', tool: 'view_file', args: { file: 'a' }, depends_on: ['step_2'] },
  { id: 'step_2', tool: 'view_file', args: { file: '../../etc/passwd' }, depends_on: ['step_1'] },
  { id: 'step_3', tool: 'view_file', args: { file: 'b' } },
]

describe('toText', () => {
  it('should draw an approved plan level by level', () => {
    const text = toText(compiler.compile(good))
    expect(text).toMatch(/^plan [0-9a-f]{12}: approved · 2 steps · 2 levels/)
    expect(text).toContain('level 0\n  ✓ step_1  view_file  file="core/auth.py"')
    expect(text).toContain('✓ step_2  write_file  file="core/auth.py"  ← step_1')
  })

  it('should mark the offending steps of a rejected plan with their issues and the cycle', () => {
    const result = compiler.validate(cyclic)
    expect(result.success).toBe(false)
    const text = toText(cyclic, { issues: result.issues })
    expect(text).toContain('rejected')
    expect(text).toContain('✗ step_2')
    expect(text).toContain('path_outside_workspace')
    expect(text).toContain('cycle: step_1 → step_2 → step_1')
    expect(text).toContain('✓ step_3')
  })

  it('should show run-time status and colour only when asked', () => {
    const plan = compiler.compile(good)
    const text = toText(plan, { status: { step_1: 'done', step_2: 'denied' } })
    expect(text).toContain('[denied]')
    expect(text).not.toContain('\u001b[')
    expect(toText(plan, { color: true })).toContain('\u001b[32m')
  })

  it('should not pass control characters from a hostile plan to the terminal', () => {
    const text = toText([{ id: 'a', tool: '\u001b]0;pwned\u0007evil' }], { issues: [] })
    expect(text).not.toContain('\u001b')
  })
})

describe('toMermaid', () => {
  it('should draw nodes and dependency edges', () => {
    const chart = toMermaid(compiler.compile(good))
    expect(chart.startsWith('flowchart TD\n')).toBe(true)
    expect(chart).toContain('s0 --> s1')
    expect(chart).toContain(':::approved')
  })

  it('should escape labels so a step cannot inject Mermaid syntax', () => {
    const chart = toMermaid([{ id: 'a"]\nclick s0 call alert()', tool: 'x' }], { issues: [] })
    expect(chart.split('\n').filter((line) => line.includes('click'))).toHaveLength(1)
    expect(chart).not.toContain('"]\n')
  })

  it('should style rejected steps', () => {
    const result = compiler.validate(cyclic)
    expect(toMermaid(cyclic, { issues: result.issues })).toContain(':::rejected')
  })
})

describe('toDot', () => {
  it('should draw a digraph with escaped labels', () => {
    const dot = toDot(compiler.compile(good))
    expect(dot).toContain('digraph plan {')
    expect(dot).toContain('s0 -> s1;')
    expect(toDot([{ id: 'q"uote', tool: 'x\\' }])).toContain('q\\"uote: x\\\\')
  })
})
