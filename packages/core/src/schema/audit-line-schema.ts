import { z } from 'zod'

/**
 * The envelope of one audit log line, `{"seq","time","prev","event"}`: a line number (a safe
 * integer), an ISO 8601 time, the SHA-256 (or HMAC-SHA-256) hex of the previous line, and an
 * event with a `type`. Other keys are kept, so a newer writer's lines still verify.
 * `z.toJSONSchema(auditLineSchema)` gives its JSON Schema for a verifier in another language.
 */
export const auditLineSchema = z.looseObject({
  seq: z.int(),
  time: z.string(),
  prev: z.string().regex(/^[0-9a-f]{64}$/),
  event: z.looseObject({ type: z.string() }),
})

/** One audit log line as {@link auditLineSchema} reads it. */
export type AuditLine = z.infer<typeof auditLineSchema>
