import { describe, expect, it } from 'vitest'
import { resolvePolicy } from '../policy/resolve-policy.js'
import { toolFacts } from './tool-facts.js'

const policy = resolvePolicy({
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: {
    echo: { args: { text: { type: 'string' } } },
    view_file: { args: { file: { type: 'path', access: 'read' } } },
    write_files: {
      args: { files: { type: 'array', items: { type: 'path', access: 'write' } } },
    },
    fetch: { args: { urls: { type: 'array', items: { type: 'string', format: 'url' } } } },
    run_command: { args: { command: { type: 'command' } } },
    run_all: { args: { commands: { type: 'array', items: { type: 'command' } } } },
  },
})

describe('toolFacts', () => {
  it('should find path, write and URL arguments, inside arrays too', () => {
    expect(toolFacts(policy.tools.get('echo'))).toMatchObject({
      paths: false,
      writes: false,
      urls: false,
    })
    expect(toolFacts(policy.tools.get('view_file'))).toMatchObject({
      paths: true,
      writes: false,
      urls: false,
    })
    expect(toolFacts(policy.tools.get('write_files'))).toMatchObject({
      paths: true,
      writes: true,
      urls: false,
    })
    expect(toolFacts(policy.tools.get('fetch'))).toMatchObject({
      paths: false,
      writes: false,
      urls: true,
    })
  })

  it('should find command arguments, inside arrays too', () => {
    expect(toolFacts(policy.tools.get('run_command')).commands).toBe(true)
    expect(toolFacts(policy.tools.get('run_all')).commands).toBe(true)
    for (const tool of ['echo', 'view_file', 'write_files', 'fetch'])
      expect(toolFacts(policy.tools.get(tool)).commands).toBe(false)
  })

  it('should give the declared arguments, and none for a tool the policy does not list', () => {
    const echo = policy.tools.get('echo')
    expect(toolFacts(echo).specs).toBe(echo?.args)
    expect(toolFacts(undefined)).toEqual({
      specs: undefined,
      paths: false,
      writes: false,
      urls: false,
      commands: false,
    })
  })
})
