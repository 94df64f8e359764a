import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from './create-plan-compiler.js'

async function compilerWith(bounds: { minLength?: number; maxLength?: number }) {
  return createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: { note: { args: { text: { type: 'string', required: true, ...bounds } } } },
  })
}

function messages(issues: readonly { code: string; message: string }[]) {
  return issues.map((issue) => `${issue.code}: ${issue.message}`)
}

describe('string arguments counted as JSON Schema counts them', () => {
  it('should count a character beyond the BMP once for minLength', async () => {
    const compiler = await compilerWith({ minLength: 2 })
    expect(messages(compiler.checkArguments('note', { text: '😀' }))).toEqual([
      'invalid_arguments: String is shorter than 2 characters.',
    ])
    expect(compiler.checkArguments('note', { text: '😀😀' })).toEqual([])
    expect(compiler.checkArguments('note', { text: 'ab' })).toEqual([])
    expect(compiler.checkArguments('note', { text: 'a' }).map((issue) => issue.code)).toEqual([
      'invalid_arguments',
    ])
  })

  it('should count a character beyond the BMP once for maxLength', async () => {
    const compiler = await compilerWith({ maxLength: 3 })
    expect(compiler.checkArguments('note', { text: '😀😀😀' })).toEqual([])
    expect(compiler.checkArguments('note', { text: 'abc' })).toEqual([])
    expect(messages(compiler.checkArguments('note', { text: '😀😀😀😀' }))).toEqual([
      'invalid_arguments: String is 4 characters long (at most 3).',
    ])
    expect(messages(compiler.checkArguments('note', { text: 'abcd' }))).toEqual([
      'invalid_arguments: String is 4 characters long (at most 3).',
    ])
  })

  it('should count a lone surrogate as one character', async () => {
    const compiler = await compilerWith({ minLength: 2, maxLength: 2 })
    expect(compiler.checkArguments('note', { text: '\uD800\uD800' })).toEqual([])
    expect(compiler.checkArguments('note', { text: '\uD800' }).map((issue) => issue.code)).toEqual([
      'invalid_arguments',
    ])
  })
})
