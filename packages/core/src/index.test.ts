import { describe, expect, it } from 'vitest'
import * as audit from './audit.js'
import * as main from './index.js'
import * as render from './render.js'

// The public surface, pinned: adding or removing a runtime export is a deliberate change here
// (and a changeset), not a side effect of an edit elsewhere.
const MAIN_ENTRY = [
  'EXTRACT_TOOL',
  'GENERATE_TOOL',
  'PlanCompilationError',
  'PlanError',
  'REPOSITORY_CODE_PATHS',
  'PolicyError',
  'SENSITIVE_FILES',
  'allowedText',
  'applySavedStateChanges',
  'authorizeInterrupted',
  'createCommandChecker',
  'createMemoryGuardStore',
  'createModelStepTools',
  'createPlanCompiler',
  'createPlanGuard',
  'createSignedGuardStore',
  'decidePolicyCase',
  'definePlan',
  'definePolicy',
  'executePlan',
  'finishDurableCall',
  'formatIssues',
  'isCompiledPlan',
  'isWithin',
  'modelStepPlannerHint',
  'modelStepToolPolicy',
  'policyFromTools',
  'refusalText',
  'resolveCompiler',
  'ruleOfTwo',
  'runReadyModelSteps',
  'saveGuardState',
  'sharedBudgetReservations',
  'signPlan',
  'startDurableCall',
  'stepsFromToolCalls',
  'verifyPlan',
]

describe('@plan/core', () => {
  it('should export exactly the pinned runtime names from its main entry', () => {
    expect(Object.keys(main).sort()).toEqual([...MAIN_ENTRY].sort())
  })

  it('should keep the main entry at 40 runtime exports or fewer', () => {
    expect(Object.keys(main).length).toBeLessThanOrEqual(40)
  })

  it('should export rendering and the audit log from their own subpaths', () => {
    expect(Object.keys(render).sort()).toEqual(['planView', 'toDot', 'toMermaid', 'toText'])
    expect(Object.keys(audit).sort()).toEqual([
      'AUDIT_GENESIS',
      'auditLineSchema',
      'createMemoryAuditSink',
      'verifyAuditLog',
    ])
  })
})
