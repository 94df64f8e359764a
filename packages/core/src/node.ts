// `@plan/core/node`: the parts that need Node.js (the file system): on-disk path checks, the
// file audit sink and loading a policy file. The main entry holds the compiler and the guard;
// the reference tools are `@plan/tools`.
export type { FileAuditSink, FileAuditSinkOptions } from './audit/create-file-audit-sink.js'
export { createFileAuditSink } from './audit/create-file-audit-sink.js'
export { checkPathOnDisk } from './checks/path-on-disk.js'
export { loadPolicy } from './policy/resolve-policy.js'
