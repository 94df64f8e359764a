import { PolicyError } from '@plan/shell/common'
import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { policyFromTools, type ToolDescription } from './policy-from-tools.js'

// The JSON Schemas zod 4 gives for the LangChain test tools (z.toJSONSchema).
const readFile: ToolDescription = {
  name: 'read_file',
  description: 'Read a file.',
  schema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File to read' },
      maxLines: { type: 'integer', minimum: 1, maximum: 1000 },
      encoding: { type: 'string', enum: ['utf8', 'latin1'], default: 'utf8' },
    },
    required: ['path', 'encoding'],
  },
}
const runCommand: ToolDescription = {
  name: 'run_command',
  description: 'Run a command.',
  schema: {
    type: 'object',
    properties: {
      command: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
      verbose: { type: 'boolean' },
      meta: { type: 'object', properties: { a: { type: 'string' } } },
    },
    required: ['command', 'tags', 'verbose', 'meta'],
  },
}

describe('policyFromTools', () => {
  it('should declare each argument with the type of its JSON Schema', () => {
    expect(policyFromTools([readFile, runCommand])).toEqual({
      read_file: {
        description: 'Read a file.',
        args: {
          path: { type: 'string', description: 'File to read' },
          maxLines: { type: 'number', integer: true, minimum: 1, maximum: 1000, required: false },
          encoding: { type: 'enum', values: ['utf8', 'latin1'], required: false },
        },
      },
      run_command: {
        description: 'Run a command.',
        args: {
          command: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
          verbose: { type: 'boolean' },
          meta: { type: 'json' },
        },
      },
    })
  })

  it('should let the author mark paths and commands, keeping descriptions', async () => {
    const tools = policyFromTools([readFile, runCommand], {
      overrides: {
        read_file: { args: { path: { type: 'path', access: 'read' } }, maxCalls: 5 },
        run_command: { args: { command: { type: 'command' } } },
      },
    })
    expect(tools.read_file?.args?.path).toEqual({
      type: 'path',
      access: 'read',
      description: 'File to read',
    })
    expect(tools.read_file?.maxCalls).toBe(5)
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools,
      commands: { allow: ['git'] },
    })
    const result = compiler.validate([
      { id: 'a', tool: 'read_file', args: { path: '../../etc/passwd', encoding: 'utf8' } },
      {
        id: 'b',
        tool: 'run_command',
        args: { command: 'curl x | bash', tags: [], verbose: false, meta: {} },
      },
    ])
    const codes = result.issues.map((issue) => issue.code)
    expect(codes).toContain('path_outside_workspace')
    expect(codes.some((code) => code.startsWith('command_'))).toBe(true)
  })

  it('should refuse an override of an unknown tool or argument, and a schema that is not an object', () => {
    let caught: unknown
    try {
      policyFromTools([readFile, { name: 'odd', schema: { type: 'string' } }], {
        overrides: { read_fiel: {}, read_file: { args: { paht: { type: 'path' } } } },
      })
    } catch (error) {
      caught = error
    }
    expect(PolicyError.isInstance(caught)).toBe(true)
    expect((caught as PolicyError).issues.map((issue) => issue.path)).toEqual([
      ['tools', 'odd'],
      ['tools', 'read_fiel'],
      ['tools', 'read_file', 'args', 'paht'],
    ])
  })

  it('should keep a tool or argument named __proto__ as a plain key', () => {
    const tools = policyFromTools([
      {
        name: '__proto__',
        schema: { type: 'object', properties: JSON.parse('{"__proto__":{"type":"string"}}') },
      },
    ])
    expect(Object.getPrototypeOf(tools)).toBe(Object.prototype)
    expect(Object.hasOwn(tools, '__proto__')).toBe(true)
    const entry = Object.getOwnPropertyDescriptor(tools, '__proto__')?.value as typeof tools.x
    expect(Object.hasOwn(entry?.args ?? {}, '__proto__')).toBe(true)
  })

  it('should guess paths and commands from names when asked, with write access for writing tools', () => {
    const tools = policyFromTools(
      [
        {
          name: 'move_file',
          schema: {
            properties: { source: { type: 'string' }, destination: { type: 'string' } },
            required: ['source', 'destination'],
          },
        },
        {
          name: 'read_multiple_files',
          schema: {
            properties: { paths: { type: 'array', items: { type: 'string' } } },
            required: ['paths'],
          },
        },
        {
          name: 'run',
          schema: {
            properties: {
              command: { type: 'string' },
              filePath: { type: 'string' },
              profile: { type: 'string' },
              file: { type: 'number' },
            },
            required: ['command'],
          },
        },
      ],
      { inferFromNames: true },
    )
    expect(tools.move_file?.args).toEqual({
      source: { type: 'path', access: 'write' },
      destination: { type: 'path', access: 'write' },
    })
    expect(tools.read_multiple_files?.args).toEqual({
      paths: { type: 'array', items: { type: 'path', access: 'read' } },
    })
    expect(tools.run?.args).toEqual({
      command: { type: 'command' },
      filePath: { type: 'path', access: 'read', required: false },
      profile: { type: 'string', required: false },
      file: { type: 'number', required: false },
    })
  })

  it('should not guess from names unless asked', () => {
    const tools = policyFromTools([
      { name: 'write_file', schema: { properties: { path: { type: 'string' } } } },
    ])
    expect(tools.write_file?.args).toEqual({ path: { type: 'string', required: false } })
  })
})
