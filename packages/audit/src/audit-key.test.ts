import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type AuditRecord, PlanError } from '@plan/core'
import { sha256Hex } from '@plan/core/adapter'
import { afterEach, describe, expect, it } from 'vitest'
import { formatAuditLine } from './audit-chain.js'
import { AUDIT_GENESIS } from './audit-key.js'
import { createFileAuditSink } from './create-file-audit-sink.js'
import { createMemoryAuditSink } from './create-memory-audit-sink.js'
import { verifyAuditLog } from './verify-audit-log.js'

const key = 'k'.repeat(32)

function keyedLog(count = 4): string[] {
  const sink = createMemoryAuditSink({ now: () => 0, key })
  for (let index = 0; index < count; index += 1)
    sink.write({ type: 'step_released', stepId: `s${index}` })
  return [...sink.lines]
}

/** Edits one event and re-chains every line with plain SHA-256, as a forger without the key would. */
function forge(lines: readonly string[], edit: number): string[] {
  let prev = AUDIT_GENESIS
  return lines.map((line, index) => {
    const record = JSON.parse(line) as AuditRecord
    const event =
      index === edit ? { type: 'step_released' as const, stepId: 'forged' } : record.event
    const text = formatAuditLine(record.seq, record.time, prev, event)
    prev = sha256Hex(text)
    return text
  })
}

describe('verifyAuditLog (keyed chain)', () => {
  it('should verify a keyed log with its key and refuse it without', () => {
    const lines = keyedLog()
    expect(verifyAuditLog(lines, { key })).toMatchObject({ valid: true, count: 4 })
    expect(verifyAuditLog(lines)).toMatchObject({ valid: false, problem: 'broken_link', line: 1 })
    expect(verifyAuditLog(lines, { key: 'x'.repeat(32) })).toMatchObject({ valid: false })
  })

  it('should refuse an edited log re-chained without the key, though it verifies unkeyed', () => {
    const forged = forge(keyedLog(), 2)
    expect(verifyAuditLog(forged).valid).toBe(true)
    const result = verifyAuditLog(forged, { key })
    expect(result.valid).toBe(false)
    if (!result.valid) {
      expect(result.problem).toBe('broken_link')
      expect(result.issues[0]?.code).toBe('audit_invalid')
    }
  })
})

describe('verifyAuditLog (input that is not a log)', () => {
  const throwing = new Proxy([] as string[], {
    get(target, property) {
      if (property === 'length') throw new Error('trap')
      return Reflect.get(target, property)
    },
  })

  it.each([
    ['a number', 42],
    ['null', null],
    ['an object', { lines: [] }],
    ['an array with a number', ['{}', 1]],
    ['a Proxy whose length throws', throwing],
  ])('should refuse %s with an audit_invalid issue, without throwing', (_name, input) => {
    const result = verifyAuditLog(input as never)
    expect(result).toMatchObject({ valid: false, problem: 'not_a_log' })
    if (!result.valid) expect(result.issues[0]?.code).toBe('audit_invalid')
  })

  it('should refuse a key that is too short as not_a_log', () => {
    expect(verifyAuditLog([], { key: 'short' })).toMatchObject({
      valid: false,
      problem: 'not_a_log',
    })
  })
})

describe('createFileAuditSink (keyed)', () => {
  let folder: string | undefined
  afterEach(() => {
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true })
  })

  it('should continue a keyed log across reopenings so that it verifies with the key', () => {
    folder = mkdtempSync(join(tmpdir(), 'plan-audit-key-'))
    const file = join(folder, 'audit.jsonl')
    const first = createFileAuditSink(file, { key, fsync: false })
    first.write({ type: 'step_released', stepId: 'a' })
    first.close()
    const second = createFileAuditSink(file, { key, fsync: false, verify: true })
    second.write({ type: 'step_released', stepId: 'b' })
    second.close()
    const text = readFileSync(file, 'utf8')
    expect(verifyAuditLog(text, { key })).toMatchObject({ valid: true, count: 2 })
    expect(verifyAuditLog(text).valid).toBe(false)
  })

  it('should refuse a key shorter than 32 bytes with invalid_configuration', () => {
    folder = mkdtempSync(join(tmpdir(), 'plan-audit-key-'))
    let caught: unknown
    try {
      createFileAuditSink(join(folder, 'audit.jsonl'), { key: 'short' })
    } catch (error) {
      caught = error
    }
    expect(PlanError.isInstance(caught) && caught.code).toBe('invalid_configuration')
  })
})
