import { createPlanCompiler } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { policyFromTools } from './policy-from-tools.js'

const readFile = {
  name: 'read_text_file',
  description: 'Read a file.',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, head: { type: 'number' } },
    required: ['path'],
  },
}

describe('policyFromTools', () => {
  it('should declare each listed argument with its JSON Schema type', async () => {
    expect(await policyFromTools([readFile])).toEqual({
      read_text_file: {
        description: 'Read a file.',
        args: { path: { type: 'string' }, head: { type: 'number', required: false } },
      },
    })
  })

  it('should check a path the author marks, and refuse one outside the workspace', async () => {
    const tools = await policyFromTools([readFile], {
      overrides: { read_text_file: { args: { path: { type: 'path', access: 'read' } } } },
    })
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools,
    })
    const step = (path: string) => [{ id: 'read', tool: 'read_text_file', args: { path } }]
    expect(compiler.validate(step('docs/guide.md')).success).toBe(true)
    expect(compiler.validate(step('../../etc/passwd')).issues.map((issue) => issue.code)).toEqual([
      'path_outside_workspace',
    ])
  })

  it('should guess paths from names only when asked to', async () => {
    const guessed = await policyFromTools([readFile], { inferFromNames: true })
    expect(guessed.read_text_file?.args?.path).toEqual({ type: 'path', access: 'read' })
    const plain = await policyFromTools([readFile])
    expect(plain.read_text_file?.args?.path).toEqual({ type: 'string' })
  })

  it('should reject an override of a tool the server did not list', async () => {
    await expect(
      policyFromTools([readFile], { overrides: { read_file: { args: {} } } }),
    ).rejects.toMatchObject({ code: 'invalid_policy', issues: [{ path: ['tools', 'read_file'] }] })
  })

  it('should reject a tool whose input schema is not an object', async () => {
    await expect(
      policyFromTools([{ name: 'odd', inputSchema: { type: 'string' } }]),
    ).rejects.toMatchObject({ code: 'invalid_policy', issues: [{ path: ['tools', 'odd'] }] })
  })
})
