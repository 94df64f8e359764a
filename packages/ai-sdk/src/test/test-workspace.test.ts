import * as kit from '@plan/core/test'
import { describe, expect, it } from 'vitest'
import * as test from './index.js'

describe('@plan/ai-sdk/test', () => {
  it("should give the workspace and policy of core's test kit, the same in every adapter", () => {
    expect(test.createTestWorkspace).toBe(kit.createTestWorkspace)
    expect(test.testPolicy).toBe(kit.testPolicy)
    expect(test.defaultTestFiles).toBe(kit.defaultTestFiles)
  })
})
