// `@plan/audit`: the hash-chained audit log: an in-memory sink and the verifier of a JSON-lines
// log (a zod schema reads each line). Runtime-neutral: no Node.js built-in. The file sink needs
// Node.js and lives in `@plan/audit/node`.
export type { AuditEvent, AuditRecord, AuditSink } from '@plan/core'
export type { AuditHead } from './audit-chain.js'
export type { AuditKey } from './audit-key.js'
export { AUDIT_GENESIS } from './audit-key.js'
export type { AuditLine } from './audit-line-schema.js'
export { auditLineSchema } from './audit-line-schema.js'
export type { MemoryAuditSink, MemoryAuditSinkOptions } from './create-memory-audit-sink.js'
export { createMemoryAuditSink } from './create-memory-audit-sink.js'
export type {
  AuditLogProblem,
  AuditLogVerification,
  VerifyAuditLogOptions,
} from './verify-audit-log.js'
export { verifyAuditLog } from './verify-audit-log.js'
