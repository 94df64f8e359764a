// `@plan/core/node`: the parts that need Node.js (the file system): on-disk path checks and
// loading a policy file. The main entry holds the compiler and the guard; the reference tools
// are `@plan/tools`, the file audit sink `@plan/audit/node`.
export { checkPathOnDisk } from './checks/path-on-disk.js'
export { loadPolicy } from './policy/resolve-policy.js'
