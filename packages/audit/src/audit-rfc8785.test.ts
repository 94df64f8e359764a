import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import { describe, expect, it } from 'vitest'
import { AUDIT_GENESIS } from './audit-key.js'
import { createMemoryAuditSink } from './create-memory-audit-sink.js'
import { verifyAuditLog } from './verify-audit-log.js'

/** A verifier that shares no code with core: RFC 8785 by the `canonicalize` package, node's SHA-256. */
function verifyIndependently(lines: readonly string[]): boolean {
  let previous = AUDIT_GENESIS
  for (const [index, line] of lines.entries()) {
    const record = JSON.parse(line) as { prev: string; seq: number }
    if (canonicalize(record) !== line) return false
    if (record.prev !== previous || record.seq !== index + 1) return false
    previous = createHash('sha256').update(line, 'utf8').digest('hex')
  }
  return true
}

function writtenLog(): string[] {
  const sink = createMemoryAuditSink({ now: () => Date.UTC(2026, 0, 2, 3, 4, 5) })
  sink.write({ type: 'plan_approved', planHash: 'a'.repeat(64), steps: 2 } as never)
  // Keys that plain sorting and JSON.stringify order differently, numbers, non-ASCII text.
  sink.write({
    type: 'call_denied',
    tool: 'write_file',
    args: { 10: 'ten', 2: 'two', b: 1e21, a: -0, é: 'ü\u2028', '\u{1F600}': [0.1, 5e-7] },
  } as never)
  sink.write({ type: 'run_finished', nested: { z: { y: null, x: true } } } as never)
  return [...sink.lines]
}

describe('audit log in RFC 8785 canonical JSON', () => {
  it('should be verified by an independent RFC 8785 implementation', () => {
    const lines = writtenLog()
    expect(verifyIndependently(lines)).toBe(true)
    expect(verifyAuditLog(lines)).toMatchObject({ valid: true, count: 3 })
  })

  it('should be refused by the independent verifier once a line is edited', () => {
    const lines = writtenLog()
    lines[1] = (lines[1] as string).replace('"ten"', '"TEN"')
    expect(verifyIndependently(lines)).toBe(false)
    expect(verifyAuditLog(lines)).toMatchObject({ valid: false, problem: 'broken_link', line: 3 })
  })

  it('should refuse a version 2 line whose keys were reordered, though its data is unchanged', () => {
    const lines = writtenLog()
    const record = JSON.parse(lines[0] as string) as Record<string, unknown>
    const { seq, ...rest } = record
    lines[0] = JSON.stringify({ seq, ...rest })
    expect(verifyAuditLog(lines)).toMatchObject({ valid: false, problem: 'malformed', line: 1 })
  })

  it('should keep verifying a log written before the version marker', () => {
    const legacy: string[] = []
    let previous = AUDIT_GENESIS
    for (const [index, stepId] of ['b', 'a'].entries()) {
      const line = `{"seq":${index + 1},"time":"2026-01-01T00:00:00.000Z","prev":"${previous}","event":{"stepId":"${stepId}","type":"step_released"}}`
      legacy.push(line)
      previous = createHash('sha256').update(line, 'utf8').digest('hex')
    }
    expect(verifyAuditLog(legacy)).toMatchObject({ valid: true, count: 2 })
  })
})
