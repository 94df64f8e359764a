// `@plan/core/test`: the test kit every adapter's tests share (a temporary workspace, a policy
// over it). Needs Node.js; imports no test runner.
export type { TestWorkspace, TestWorkspaceOptions } from './testing/create-test-workspace.js'
export { createTestWorkspace, defaultTestFiles } from './testing/create-test-workspace.js'
export { testPolicy } from './testing/test-policy.js'
