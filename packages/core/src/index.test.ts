import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as adapter from './adapter.js'
import * as main from './index.js'
import * as internal from './internal.js'
import * as testKit from './test.js'

// The public surface, pinned: adding or removing a runtime export is a deliberate change here
// (and a changeset), not a side effect of an edit elsewhere.
const MAIN_ENTRY = [
  'PlanCompilationError',
  'PlanError',
  'REPOSITORY_CODE_PATHS',
  'PolicyError',
  'SENSITIVE_FILES',
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
  'formatIssues',
  'modelStepToolPolicy',
  'ruleOfTwo',
  'signPlan',
  'verifyPlan',
]

// The adapter API (`@plan/core/adapter`), pinned likewise: it is versioned with the adapters,
// and each name is documented in docs/adapter-api.md.
const ADAPTER_ENTRY = [
  'EXTRACT_TOOL',
  'GENERATE_TOOL',
  'allowedText',
  'applySavedStateChanges',
  'authorizeInterrupted',
  'canonicalJson',
  'countOption',
  'createRunWriter',
  'errorCode',
  'errorMessage',
  'finishDurableCall',
  'formatPath',
  'hashJson',
  'hmacSha256',
  'hostAllowed',
  'isCompiledPlan',
  'isWithin',
  'lastWordText',
  'loadSavedState',
  'modelStepPlannerHint',
  'policyFromTools',
  'refusalText',
  'reviewText',
  'replanLimit',
  'resolveCompiler',
  'rfc8785Json',
  'runEndedText',
  'runReadyModelSteps',
  'runTakenError',
  'runWriteDecision',
  'saveGuardState',
  'secretBytes',
  'sha256Hex',
  'startDurableCall',
  'stepsFromToolCalls',
  'toHex',
  'traceCallDecision',
  'traceSandboxViolations',
  'unreadableIssue',
]

const PACKAGES = join(import.meta.dirname, '..', '..')

/** The source files (tests included) of every package that is published. */
function publishedSources(): string[] {
  const files: string[] = []
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) files.push(path)
    }
  }
  for (const name of readdirSync(PACKAGES)) {
    const manifest = JSON.parse(readFileSync(join(PACKAGES, name, 'package.json'), 'utf8'))
    if (manifest.private !== true) walk(join(PACKAGES, name, 'src'))
  }
  return files
}

describe('@plan/core', () => {
  it('should export exactly the pinned runtime names from its main entry', () => {
    expect(Object.keys(main).sort()).toEqual([...MAIN_ENTRY].sort())
  })

  it('should keep the main entry at 25 runtime exports or fewer', () => {
    expect(Object.keys(main).length).toBeLessThanOrEqual(25)
  })

  it('should export exactly the pinned adapter API from @plan/core/adapter', () => {
    expect(Object.keys(adapter).sort()).toEqual([...ADAPTER_ENTRY].sort())
  })

  it('should document every name of the adapter API in docs/adapter-api.md', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'adapter-api.md'), 'utf8')
    expect(ADAPTER_ENTRY.filter((name) => !doc.includes(`\`${name}`))).toEqual([])
  })

  it('should export no name from both the main entry and the adapter API', () => {
    expect(Object.keys(adapter).filter((name) => Object.hasOwn(main, name))).toEqual([])
  })

  it('should export the test kit from @plan/core/test', () => {
    expect(Object.keys(testKit).sort()).toEqual([
      'createTestWorkspace',
      'defaultTestFiles',
      'testPolicy',
    ])
  })

  it('should keep @plan/core/internal to what the private benchmarks measure', () => {
    expect(Object.keys(internal)).toEqual(['analyzeGraph'])
  })

  it('should release core and every published package in lockstep', () => {
    const config = JSON.parse(
      readFileSync(join(PACKAGES, '..', '.changeset', 'config.json'), 'utf8'),
    ) as { fixed: string[][] }
    const published = readdirSync(PACKAGES)
      .map((name) => JSON.parse(readFileSync(join(PACKAGES, name, 'package.json'), 'utf8')))
      .filter((manifest) => manifest.private !== true)
      .map((manifest) => manifest.name as string)
    expect(config.fixed.map((group) => [...group].sort())).toEqual([published.sort()])
  })

  it('should have no published package import @plan/core/internal', () => {
    const importers = publishedSources().filter(
      (file) =>
        file !== import.meta.filename &&
        readFileSync(file, 'utf8').includes(`'@plan/core/internal'`),
    )
    expect(importers.map((file) => file.slice(PACKAGES.length + 1))).toEqual([])
  })
})
