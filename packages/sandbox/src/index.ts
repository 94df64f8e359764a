export type { SandboxLaunch } from './bubblewrap-args.js'
export { bubblewrapArgs } from './bubblewrap-args.js'
export type {
  Sandbox,
  SandboxAvailability,
  SandboxRunOptions,
  SandboxRunResult,
} from './create-sandbox.js'
export { checkSandbox, createSandbox } from './create-sandbox.js'
export type { SandboxedReferenceToolsOptions } from './create-sandboxed-reference-tools.js'
export { createSandboxedReferenceTools } from './create-sandboxed-reference-tools.js'
export { HOME_CREDENTIALS, SYSTEM_CREDENTIALS } from './credential-paths.js'
export { GIT_TODO_LISTS } from './git-code-parts.js'
export type { SandboxConfig, SandboxOptions } from './sandbox-config.js'
export { createSandboxConfig } from './sandbox-config.js'
export { SandboxError } from './sandbox-error.js'
export type { SandboxLimits } from './sandbox-limits.js'
export { DEFAULT_LIMITS, DEFAULT_PROCESS_QUOTA } from './sandbox-limits.js'
export type { SeccompArch } from './seccomp-filter.js'
export { DENIED_SYSCALLS, MODE_SYSCALLS, seccompFilter } from './seccomp-filter.js'
export type { SandboxSpawnOptions } from './spawn-sandboxed.js'
export { SYSTEM_ETC, SYSTEM_FOLDERS } from './system-files.js'
