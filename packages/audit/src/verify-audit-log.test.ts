import { describe, expect, it } from 'vitest'
import { createMemoryAuditSink } from './create-memory-audit-sink.js'
import { verifyAuditLog } from './verify-audit-log.js'

function sampleLog(count = 5): string[] {
  const sink = createMemoryAuditSink({ now: () => 0 })
  for (let index = 0; index < count; index += 1)
    sink.write({ type: 'step_released', stepId: `s${index}` })
  return [...sink.lines]
}

function problemOf(log: string | string[]) {
  const result = verifyAuditLog(log)
  return result.valid ? 'valid' : `${result.problem}@${result.line}`
}

describe('verifyAuditLog', () => {
  it('should accept an untouched log and report its head', () => {
    const lines = sampleLog()
    const result = verifyAuditLog(`${lines.join('\n')}\n`)
    expect(result).toMatchObject({ valid: true, count: 5, head: { seq: 5 } })
    expect(verifyAuditLog([])).toMatchObject({ valid: true, count: 0 })
  })

  it('should detect an edited line at the link after it', () => {
    const lines = sampleLog()
    lines[2] = (lines[2] as string).replace('s2', 's9')
    expect(problemOf(lines)).toBe('broken_link@4')
  })

  it('should detect a deleted line', () => {
    const lines = sampleLog()
    lines.splice(1, 1)
    expect(problemOf(lines)).toBe('sequence@2')
    expect(problemOf(sampleLog().slice(1))).toBe('sequence@1')
  })

  it('should detect reordered lines', () => {
    const lines = sampleLog()
    ;[lines[1], lines[2]] = [lines[2] as string, lines[1] as string]
    expect(problemOf(lines)).toBe('sequence@2')
  })

  it('should detect a renumbered line that was re-chained by hand', () => {
    const lines = sampleLog()
    // Keep numbers consistent but forge the content of line 3 and its link.
    lines[2] = (lines[2] as string).replace(/"prev":"[0-9a-f]+"/, `"prev":"${'1'.repeat(64)}"`)
    expect(problemOf(lines)).toBe('broken_link@3')
  })

  it('should detect a truncated last line and a line cut short in the middle', () => {
    const text = `${sampleLog().join('\n')}\n`
    expect(problemOf(text.slice(0, -10))).toBe('truncated@5')
    expect(problemOf(text.slice(0, -1))).toBe('truncated@5')
    const lines = sampleLog()
    lines[1] = (lines[1] as string).slice(0, 20)
    expect(problemOf(lines)).toBe('malformed@2')
  })

  it('should detect lines cut off the end when the expected head is known', () => {
    const lines = sampleLog()
    const full = verifyAuditLog(lines)
    if (!full.valid) throw new Error('sample log does not verify')
    const cut = verifyAuditLog(lines.slice(0, 3), { expectedHead: full.head })
    expect(cut.valid ? 'valid' : cut.problem).toBe('head_mismatch')
    expect(verifyAuditLog(lines, { expectedHead: full.head }).valid).toBe(true)
  })

  it('should refuse a hostile value as not a log, never a throw', () => {
    const revocable = Proxy.revocable({}, {})
    revocable.revoke()
    const boom = (): never => {
      throw new Error('hostile getter')
    }
    const hostile: unknown[] = [
      revocable.proxy,
      new Proxy([], { get: boom, has: boom, ownKeys: boom, getPrototypeOf: boom }),
      Object.defineProperty({}, 'length', { get: boom }),
      10n,
      Symbol('s'),
      { toString: boom },
    ]
    for (const value of hostile) {
      const result = verifyAuditLog(value as never)
      expect(result.valid ? 'valid' : result.problem).toMatch(/^(not_a_log|malformed)$/)
    }
  })
})
