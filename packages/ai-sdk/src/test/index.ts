export type { GuardFixture } from './guard-fixture.js'
export { guardFixture } from './guard-fixture.js'
export type { CallOptions, Script, ScriptedCall, ScriptedTurn } from './scripted-model.js'
export {
  modelCalls,
  promptOf,
  scriptedModel,
  toolResultsIn,
  toolsOfferedIn,
} from './scripted-model.js'
export type { TestWorkspace, TestWorkspaceOptions } from './test-workspace.js'
export { createTestWorkspace, defaultTestFiles, testPolicy } from './test-workspace.js'
