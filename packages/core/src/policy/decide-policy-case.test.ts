import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { decidePolicyCase, type PolicyCase } from './decide-policy-case.js'
import { loadPolicy } from './resolve-policy.js'

// The cases `plan policy test` runs in the CLI's tests, decided here with core alone.
const fixtures = new URL('../../../cli/src/__fixtures__/', import.meta.url)

async function casesOf(name: string): Promise<PolicyCase[]> {
  const text = await readFile(new URL(name, fixtures), 'utf8')
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as PolicyCase)
}

describe('decidePolicyCase', () => {
  it('should pass every case of the CLI fixture, calls and commands', async () => {
    const compiler = await createPlanCompiler(
      await loadPolicy(fileURLToPath(new URL('policy.json', fixtures))),
    )
    const results = (await casesOf('policy-cases.jsonl')).map((policyCase) =>
      decidePolicyCase(compiler, policyCase),
    )
    expect(results.map((result) => [result.decision, result.passed])).toEqual([
      ['allow', true],
      ['deny', true],
      ['deny', true],
      ['deny', true],
      ['allow', true],
      ['deny', true],
      ['deny', true],
    ])
  })

  it('should fail a case whose decision or issue code is not the expected one', async () => {
    const compiler = await createPlanCompiler(
      await loadPolicy(fileURLToPath(new URL('policy.json', fixtures))),
    )
    const results = (await casesOf('policy-cases-wrong.jsonl')).map((policyCase) =>
      decidePolicyCase(compiler, policyCase),
    )
    expect(
      results.map((result) => [result.decision, result.passed, result.issues[0]?.code]),
    ).toEqual([
      ['allow', true, undefined],
      ['deny', false, 'command_not_allowed'],
      ['deny', false, 'path_outside_workspace'],
    ])
  })
})
