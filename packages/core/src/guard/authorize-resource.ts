import { hashJsonOrNull, sha256Hex } from '@plan/json'
import { createIssue } from '@plan/shell/common'
import type { JsonValue } from '../types/json-value.js'
import type { ResourceAuthorizeResult, ResourceRequest } from '../types/plan-guard.js'
import { outputToJson } from '../util/json-copy.js'
import { denied } from './authorize-call.js'
import { errorOutput } from './error-output.js'
import { stopForAuditFailure } from './guard-audit.js'
import type { GuardParts } from './guard-parts.js'
import { MAX_OUTPUT_BYTES } from './max-output.js'

/** Everything before the audit: the stop, the adapter's issues, then (for a read) the budget. */
function decideResource(
  parts: GuardParts,
  request: Partial<ResourceRequest>,
): ResourceAuthorizeResult {
  const halt = parts.budgets.stopReason()
  if (halt !== undefined) return denied([halt])
  const issues = Array.isArray(request.issues) ? request.issues : []
  if (issues.length > 0) return denied(issues)
  if (typeof request.uri !== 'string')
    return denied([
      createIssue(
        'path_invalid',
        'The resource URI must be a string.',
        ['uri'],
        'Name the resource by its URI.',
      ),
    ])
  const exhausted = request.reads === true ? parts.budgets.countRead() : undefined
  return exhausted === undefined ? { allowed: true } : denied([exhausted])
}

/** `PlanGuard.authorizeResource`, audited (an unlogged read stops the run), counting denials. */
export function authorizeResource(
  parts: GuardParts,
  request: ResourceRequest,
): ResourceAuthorizeResult {
  const read: Partial<ResourceRequest> =
    typeof request === 'object' && request !== null ? request : {}
  const result = decideResource(parts, read)
  const method = typeof read.method === 'string' ? read.method : ''
  const uri = typeof read.uri === 'string' ? read.uri : null
  const path = typeof read.path === 'string' ? read.path : null
  const { audit, budgets } = parts
  if (result.allowed) {
    if (!audit.enabled || uri === null) return result
    if (audit.write({ type: 'resource_allowed', method, uri, path })) return result
    return denied([stopForAuditFailure(budgets)])
  }
  parts.record({ type: 'resource_denied', method, uri, path, issues: result.issues })
  const key = `resource:${method}:${uri === null ? '' : sha256Hex(uri)}`
  const halted = budgets.countDenial(key)
  return halted === undefined ? result : denied([...result.issues, halted])
}

/** `PlanGuard.completeResource`: labels what a read returned, as a step's output is, and audits it. */
export function completeResource(parts: GuardParts, uri: string, output: unknown): void {
  const json = outputToJson(output, MAX_OUTPUT_BYTES)
  recordResource(parts, uri, json.ok ? json.value : undefined)
}

/** `PlanGuard.failResource`: labels what a failed read showed instead, as a failed call's error is. */
export function failResource(parts: GuardParts, uri: string, error: unknown): void {
  recordResource(parts, uri, errorOutput(error))
}

/** Labels and audits what a read showed; undefined when it could not be read as JSON. */
function recordResource(parts: GuardParts, uri: string, value: JsonValue | undefined): void {
  const named = String(uri)
  const trust = parts.flow.recordContent(`resource ${named}`, value)
  if (!parts.audit.enabled) return
  const outputHash = value === undefined ? null : hashJsonOrNull(value)
  parts.record({ type: 'resource_completed', uri: named, outputHash, trust })
}
