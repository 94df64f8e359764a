import { PolicyError } from '@plan/core'
import { policySchema } from '@plan/core/schemas'
import { describe, expect, it } from 'vitest'
import { toolDefinitionHash } from '../tools/tool-definition.js'
import { starterPolicyFromTools } from './starter-policy-from-tools.js'

describe('starterPolicyFromTools', () => {
  it('should pin every tool to its listed definition and require pins', () => {
    const tool = {
      name: 'edit_file',
      title: 'Edit',
      description: 'Edit a file.',
      inputSchema: { properties: { path: { type: 'string' } }, required: ['path'] },
      annotations: { readOnlyHint: true, destructiveHint: false },
    }
    const policy = starterPolicyFromTools([tool], { root: '.', serverName: 'fs' })
    expect(Object.keys(policy.tools)).toEqual(['fs__edit_file'])
    expect(policy.tools.fs__edit_file?.pin).toBe(toolDefinitionHash(tool))
    expect(policy.mcp).toEqual({ requirePins: true })
    // the server's readOnlyHint does not make an editing tool's path a read
    expect(policy.tools.fs__edit_file?.args).toEqual({ path: { type: 'path', access: 'write' } })
    expect(policySchema.safeParse(policy).success).toBe(true)
  })

  it('should turn path-like properties into paths, with write access for writing tools', () => {
    const policy = starterPolicyFromTools(
      [
        {
          name: 'write_file',
          description: 'Create a new file. Overwrites.',
          inputSchema: {
            properties: { path: { type: 'string' }, content: { type: 'string' } },
            required: ['path', 'content'],
          },
        },
        {
          name: 'read_multiple_files',
          inputSchema: {
            properties: { paths: { type: 'array', items: { type: 'string' } } },
            required: ['paths'],
          },
        },
        {
          name: 'move_file',
          inputSchema: {
            properties: { source: { type: 'string' }, destination: { type: 'string' } },
            required: ['source', 'destination'],
          },
        },
      ],
      { root: '.' },
    )
    expect(policy.tools.write_file).toEqual({
      description: 'Create a new file.',
      args: { path: { type: 'path', access: 'write' }, content: { type: 'string' } },
      pin: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    })
    expect(policy.tools.read_multiple_files?.args).toEqual({
      paths: { type: 'array', items: { type: 'path', access: 'read' } },
    })
    expect(policy.tools.move_file?.args).toEqual({
      source: { type: 'path', access: 'write' },
      destination: { type: 'path', access: 'write' },
    })
    expect(policySchema.safeParse(policy).success).toBe(true)
  })

  it('should turn command strings into commands and keep other types, optional ones marked', () => {
    const policy = starterPolicyFromTools(
      [
        {
          name: 'run',
          inputSchema: {
            properties: {
              command: { type: 'string' },
              timeout: { type: 'integer', minimum: 1 },
              verbose: { type: 'boolean' },
              mode: { enum: ['fast', 'safe'] },
              env: { type: 'object' },
            },
            required: ['command'],
          },
        },
      ],
      { root: 'workspace' },
    )
    expect(policy.tools.run?.args).toEqual({
      command: { type: 'command' },
      timeout: { type: 'number', integer: true, minimum: 1, required: false },
      verbose: { type: 'boolean', required: false },
      mode: { type: 'enum', values: ['fast', 'safe'], required: false },
      env: { type: 'json', required: false },
    })
    expect(policy.commands).toEqual({ allow: [] })
    expect(policy.budgets).toEqual({
      maxIdenticalCalls: 3,
      maxDenials: 20,
      denialWindowSeconds: 600,
      maxReplans: 5,
    })
    expect(policy.workspace.roots).toEqual(['workspace'])
    // readOnly left to its default, the code-running parts of .git, so git commit can run
    const parsed = policySchema.parse(policy)
    expect(parsed.workspace.readOnly).toContain('.git/config')
    expect(parsed.workspace.readOnly).not.toContain('.git')
  })

  it('should take paths from the last word of a name, and only from strings', () => {
    const policy = starterPolicyFromTools(
      [
        {
          name: 'fetch',
          inputSchema: {
            properties: {
              filePath: { type: 'string' },
              source_dir: { type: 'string' },
              resource: { type: 'string' },
              profile: { type: 'string' },
              file: { type: 'number' },
            },
          },
        },
      ],
      { root: '.' },
    )
    expect(policy.tools.fetch?.args).toEqual({
      filePath: { type: 'path', access: 'read', required: false },
      source_dir: { type: 'path', access: 'read', required: false },
      resource: { type: 'string', required: false },
      profile: { type: 'string', required: false },
      file: { type: 'number', required: false },
    })
  })

  it('should refuse a tool whose input schema is not an object schema', () => {
    expect(() =>
      starterPolicyFromTools([{ name: 'odd', inputSchema: { type: 'string' } }], { root: '.' }),
    ).toThrow(PolicyError)
  })
})
