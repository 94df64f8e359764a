// `@plan/tools`: the reference tools an @plan guard stands in front of (`view_file`,
// `write_file`, `list_files`, `run_command`), the policy section that matches them, and the
// parts for writing your own command tool. Node.js only: they read and write files and run
// programs.
export type { ProcessLimits, ProcessOutcome } from './collect-process.js'
export { collectProcess } from './collect-process.js'
export type {
  CommandRunner,
  CommandRunOptions,
  CommandRunResult,
  CommandViolation,
} from './command-runner.js'
export type { ReferenceTools, ReferenceToolsOptions } from './create-reference-tools.js'
export { createReferenceTools } from './create-reference-tools.js'
export type { FileEntry, ListFilesOptions, ListFilesOutput } from './list-files-tool.js'
export { createListFilesTool } from './list-files-tool.js'
export { referenceToolPolicy } from './reference-tool-policy.js'
export type { RunCommandOptions, RunCommandOutput } from './run-command-tool.js'
export { createRunCommandTool } from './run-command-tool.js'
export { realOrSelf, safeSearchPath } from './safe-search-path.js'
export type { ViewFileOptions, ViewFileOutput } from './view-file-tool.js'
export { createViewFileTool } from './view-file-tool.js'
export type { WriteFileOptions, WriteFileOutput } from './write-file-tool.js'
export { createWriteFileTool } from './write-file-tool.js'
