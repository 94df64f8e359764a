import { z } from 'zod'

/**
 * The envelope of one audit log line, `{"event","prev","seq","time","version"}`: an event with a
 * `type`, the SHA-256 (or HMAC-SHA-256) hex of the previous line, a line number (a safe
 * integer), an ISO 8601 time and the format version. Version 2 lines are RFC 8785 canonical JSON;
 * lines without a version (written before it) keep their own key order and still verify. Other
 * keys are kept, so a newer writer's lines still verify.
 * `z.toJSONSchema(auditLineSchema)` gives its JSON Schema for a verifier in another language.
 */
export const auditLineSchema = z.looseObject({
  seq: z.int(),
  time: z.string(),
  prev: z.string().regex(/^[0-9a-f]{64}$/),
  event: z.looseObject({ type: z.string() }),
  version: z.literal(2).optional(),
})

/** One audit log line as {@link auditLineSchema} reads it. */
export type AuditLine = z.infer<typeof auditLineSchema>
