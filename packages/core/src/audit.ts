// `@plan/core/audit`: the hash-chained audit log: its records, an in-memory sink, and the
// verifier of a JSON-lines log (a zod schema reads each line). The file sink needs Node.js and
// lives in `@plan/core/node`.
export type { AuditHead } from './audit/audit-chain.js'
export type { AuditKey } from './audit/audit-key.js'
export { AUDIT_GENESIS } from './audit/audit-key.js'
export type { MemoryAuditSink, MemoryAuditSinkOptions } from './audit/create-memory-audit-sink.js'
export { createMemoryAuditSink } from './audit/create-memory-audit-sink.js'
export type {
  AuditLogProblem,
  AuditLogVerification,
  VerifyAuditLogOptions,
} from './audit/verify-audit-log.js'
export { verifyAuditLog } from './audit/verify-audit-log.js'
export type { AuditLine } from './schema/audit-line-schema.js'
export { auditLineSchema } from './schema/audit-line-schema.js'
export type { AuditEvent, AuditRecord } from './types/audit-event.js'
export type { AuditSink } from './types/audit-sink.js'
