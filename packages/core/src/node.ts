// `@plan/core/node`: on-disk path checks and policy file loading (Node.js's file system). Compiler
// and guard: the main entry; reference tools: `@plan/tools`; file audit sink: `@plan/audit/node`.
export { checkPathOnDisk } from './checks/path-on-disk.js'
export { loadPolicy } from './policy/resolve-policy.js'
