// `@plan/audit/node`: the audit sink that appends to a file (needs Node.js).
export type { FileAuditSink, FileAuditSinkOptions } from './create-file-audit-sink.js'
export { createFileAuditSink } from './create-file-audit-sink.js'
