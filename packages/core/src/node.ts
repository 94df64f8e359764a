// `@plan/core/node`: the parts that need Node.js (the file system, processes): on-disk path
// checks, the file audit sink, loading a policy file and the reference tools. The main entry
// holds the compiler and the guard.
export type { FileAuditSink, FileAuditSinkOptions } from './audit/create-file-audit-sink.js'
export { createFileAuditSink } from './audit/create-file-audit-sink.js'
export { checkPathOnDisk } from './checks/path-on-disk.js'
export { loadPolicy } from './policy/resolve-policy.js'
export type { ReferenceTools, ReferenceToolsOptions } from './tools/create-reference-tools.js'
export { createReferenceTools } from './tools/create-reference-tools.js'
export type { FileEntry, ListFilesOptions, ListFilesOutput } from './tools/list-files-tool.js'
export { createListFilesTool } from './tools/list-files-tool.js'
export { referenceToolPolicy } from './tools/reference-tool-policy.js'
export type { RunCommandOptions, RunCommandOutput } from './tools/run-command-tool.js'
export { createRunCommandTool } from './tools/run-command-tool.js'
export type { ViewFileOptions, ViewFileOutput } from './tools/view-file-tool.js'
export { createViewFileTool } from './tools/view-file-tool.js'
export type { WriteFileOptions, WriteFileOutput } from './tools/write-file-tool.js'
export { createWriteFileTool } from './tools/write-file-tool.js'
