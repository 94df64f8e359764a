import type { PlanGuard, PlanIssue } from '@plan/core'
import { errorMessage } from '@plan/core/adapter'
import type { DurableSession } from './durable-session.js'
import type { ResourceInspector, ResourceRefusal } from './resource-check.js'

/** An allowed `resources/read` or `resources/subscribe`: send it, then report how it ended. */
export interface AllowedMcpResource {
  readonly allowed: true
  /**
   * Reports the server's result, returned as it is to be forwarded: a read's content is
   * recorded with its trust label. `deliver`, when given, is handed the result first and the
   * record follows at once, as `AllowedMcpCall.finish` does.
   */
  finish(result: unknown, deliver?: (result: unknown) => void): unknown
  /** Reports an error response (its text reached the model) or that no answer came. */
  fail(error: unknown): void
}

/** A refused resource request: the issues and the JSON-RPC error message naming them. */
export interface RefusedMcpResource extends ResourceRefusal {
  readonly allowed: false
}

/** Decides about one resource request; never throws. */
export type AuthorizeMcpResource = (
  method: string,
  uri: unknown,
) => Promise<AllowedMcpResource | RefusedMcpResource>

/**
 * A read's result as recorded for trust: a content item's `uri` that repeats the URI asked for
 * is left out (the client chose it; indexed, it would match every later path beside it).
 */
function recordedContent(result: unknown, uri: unknown): unknown {
  const contents = (result as { contents?: unknown } | null)?.contents
  if (!Array.isArray(contents)) return result
  return {
    ...(result as object),
    contents: contents.map((item: unknown) => {
      if (typeof item !== 'object' || item === null || (item as { uri?: unknown }).uri !== uri)
        return item
      const { uri: _uri, ...rest } = item as Record<string, unknown>
      return rest
    }),
  }
}

/** The issues of an inspection that threw: the request is refused (fail closed). */
function inspectionFailure(error: unknown): PlanIssue {
  return {
    code: 'path_invalid',
    message: `@plan could not check the resource: ${errorMessage(error)}`,
    hint: 'Try again; if the check keeps failing, name another file of the workspace as file:///<absolute path>.',
    path: ['uri'],
  }
}

/**
 * Resource requests through the session's guard, as tool calls go: the URI is checked
 * (`inspector`), then the guard refuses it once the run has stopped, counts a read against
 * `budgets.maxCalls` and audits the decision; with a store, the counted read is saved before it
 * is sent (a read the store could not record is refused, and the store's issue recorded as its
 * outcome). A read's content (or error text) is then recorded with its trust label.
 */
export function createResourceAuthorizer(
  guard: PlanGuard,
  inspector: ResourceInspector,
  durable: DurableSession,
): AuthorizeMcpResource {
  return async (method, uri) => {
    let inspection: Awaited<ReturnType<ResourceInspector['inspect']>>
    try {
      inspection = await inspector.inspect(uri)
    } catch (error) {
      inspection = { issue: inspectionFailure(error) }
    }
    const reads = method === 'resources/read' || method === 'prompts/get'
    let decision = guard.authorizeResource({
      method,
      uri,
      ...(inspection.path === undefined ? {} : { path: inspection.path }),
      issues: inspection.issue === undefined ? [] : [inspection.issue],
      reads,
    })
    const counted = decision.allowed && reads
    if (counted) decision = await durable.save(guard)
    if (!decision.allowed) {
      const stopped = guard.stopReason() !== undefined
      // audited as allowed before the store failed: the log ends the read with the store's issue
      if (counted) guard.completeResource(uri as string, decision.issue.message)
      return { allowed: false, ...inspector.refusal(uri, decision.issues, !stopped) }
    }
    const end = (record: () => void) => {
      if (!reads) return
      record()
      durable.finish(guard)
    }
    return {
      allowed: true,
      finish: (result, deliver) => {
        deliver?.(result)
        end(() => guard.completeResource(uri as string, recordedContent(result, uri)))
        return result
      },
      // The error as the client is shown it (message, code and data) carries the label.
      fail: (error) => end(() => guard.failResource(uri as string, error)),
    }
  }
}
