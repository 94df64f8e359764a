import type { PolicyCase } from '@plan/core'
import { UsageError } from '../io.js'

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** One line's case, or why it is not one. */
function readCase(value: unknown): PolicyCase | string {
  if (!isRecord(value)) return 'not a JSON object'
  const { expect, code, name } = value
  if (expect !== 'allow' && expect !== 'deny') return '"expect" must be "allow" or "deny"'
  if (code !== undefined && typeof code !== 'string') return '"code" must be a string'
  if (name !== undefined && typeof name !== 'string') return '"name" must be a string'
  const extra = {
    ...(code === undefined ? {} : { code: code as PolicyCase['code'] & string }),
    ...(name === undefined ? {} : { name }),
  }
  if (typeof value.command === 'string' && value.tool === undefined)
    return { command: value.command, expect, ...extra }
  if (typeof value.tool === 'string' && value.command === undefined) {
    if (value.args !== undefined && !isRecord(value.args)) return '"args" must be an object'
    return {
      tool: value.tool,
      ...(value.args === undefined ? {} : { args: value.args }),
      expect,
      ...extra,
    }
  }
  return 'a case has either "tool" (with "args") or "command"'
}

/**
 * Reads a JSON-lines file of policy cases: one object per line, `{"tool","args","expect"}` or
 * `{"command","expect"}`, with an optional `code` and `name`; blank lines are skipped. Throws a
 * UsageError naming every line that is not a case.
 */
export function readPolicyCases(text: string, file: string): PolicyCase[] {
  const cases: PolicyCase[] = []
  const problems: string[] = []
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      problems.push(`${file}:${index + 1}: not valid JSON`)
      return
    }
    const read = readCase(parsed)
    if (typeof read === 'string') problems.push(`${file}:${index + 1}: ${read}`)
    else cases.push(read)
  })
  if (problems.length > 0)
    throw new UsageError(`not a file of policy cases:\n${problems.join('\n')}`)
  if (cases.length === 0) throw new UsageError(`${file} holds no policy case`)
  return cases
}
