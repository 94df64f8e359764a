export type { TestWorkspace, TestWorkspaceOptions } from '@plan/core/test'
export { createTestWorkspace, defaultTestFiles, testPolicy } from '@plan/core/test'
