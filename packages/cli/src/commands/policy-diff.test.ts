import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runInMemory } from '../test-utils/run-in-memory.js'

const base = {
  version: 1,
  workspace: { roots: ['/srv/repo'], readOnly: ['.git'], deny: ['secrets'] },
  tools: {
    view_file: { args: { file: { type: 'path', access: 'read' } } },
    write_file: { args: { file: { type: 'path', access: 'write' }, content: { type: 'string' } } },
    fetch: { args: { url: { type: 'string', format: 'url', hosts: ['docs.example.com'] } } },
    run_command: { args: { command: { type: 'command' } } },
  },
  commands: { allow: ['git', 'ls'], rules: { git: { subcommands: ['status', 'diff'] } } },
  budgets: { maxSteps: 100 },
}

type Policy = typeof base
const variants: Record<string, (policy: Policy) => unknown> = {
  base: (policy) => policy,
  'loosened-path': (policy) => ({ ...policy, workspace: { ...policy.workspace, deny: [] } }),
  'new-program': (policy) => ({
    ...policy,
    commands: { ...policy.commands, allow: ['git', 'ls', 'npm'] },
  }),
  'new-host': (policy) => ({
    ...policy,
    tools: {
      ...policy.tools,
      fetch: {
        args: {
          url: { type: 'string', format: 'url', hosts: ['docs.example.com', 'api.example.org'] },
        },
      },
    },
  }),
  'tightened-budget': (policy) => ({ ...policy, budgets: { maxSteps: 50 } }),
  'git-examples': (policy) => ({
    ...policy,
    commands: {
      ...policy.commands,
      rules: { git: { subcommands: ['status', 'diff'], examples: { deny: ['git log'] } } },
    },
  }),
  'git-log': (policy) => ({
    ...policy,
    commands: { ...policy.commands, rules: { git: { subcommands: ['status', 'diff', 'log'] } } },
  }),
  'git-any-subcommand': (policy) => ({ ...policy, commands: { ...policy.commands, rules: {} } }),
  signed: (policy) => ({ ...policy, approval: { requireSignature: true } }),
  'sandbox-env': (policy) => ({ ...policy, sandbox: { env: ['CI'] } }),
  'view-writes-exec': (policy) => ({
    ...policy,
    tools: { ...policy.tools, view_file: { args: { file: { type: 'path', access: 'write' } } } },
    commands: {
      ...policy.commands,
      rules: { git: { subcommands: ['status', 'diff'], allowExec: true } },
    },
  }),
}

let folder: string

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plan-policy-diff-'))
  for (const [name, make] of Object.entries(variants))
    await writeFile(join(folder, `${name}.json`), JSON.stringify(make(structuredClone(base))))
})

afterAll(async () => {
  await rm(folder, { recursive: true, force: true })
})

function diff(oldName: string, newName: string, format = 'json') {
  return runInMemory(['policy', 'diff', `${oldName}.json`, `${newName}.json`, '--format', format], {
    cwd: folder,
  })
}

interface Change {
  category: string
  subject: string
  direction: string
  detail: string
  probes: { probe: string; code: string }[]
}

async function changesOf(oldName: string, newName: string) {
  const result = await diff(oldName, newName)
  const document = JSON.parse(result.stdout) as { looser: boolean; changes: Change[] }
  return { code: result.code, ...document }
}

describe('plan policy diff', () => {
  it('should report no change and exit 0 for the same policy', async () => {
    expect(await changesOf('base', 'base')).toEqual({ code: 0, looser: false, changes: [] })
    expect((await diff('base', 'base', 'text')).stdout).toContain('No change')
  })

  it('should report a loosened path scope, only under that path, and exit 1', async () => {
    const { code, looser, changes } = await changesOf('base', 'loosened-path')
    expect([code, looser]).toEqual([1, true])
    expect(changes.map((change) => [change.category, change.subject, change.direction])).toEqual([
      ['path', '/srv/repo/secrets', 'looser'],
    ])
    expect(changes[0]?.probes).toContainEqual({
      probe: 'read /srv/repo/secrets/probe.txt',
      code: 'path_not_allowed',
    })
    expect(changes[0]?.probes).toContainEqual({
      probe: 'write /srv/repo/secrets',
      code: 'path_not_allowed',
    })
  })

  it('should report a new program and exit 1', async () => {
    const { code, changes } = await changesOf('base', 'new-program')
    expect(code).toBe(1)
    expect(changes.map((change) => [change.category, change.subject, change.direction])).toEqual([
      ['program', 'npm', 'looser'],
    ])
    expect(changes[0]?.probes.map((probe) => probe.probe)).toContain('npm --version')
  })

  it('should report a new host of a URL argument and exit 1', async () => {
    const { code, changes } = await changesOf('base', 'new-host')
    expect(code).toBe(1)
    expect(changes).toEqual([
      {
        category: 'host',
        subject: 'fetch.url',
        direction: 'looser',
        detail: 'NEW allows 1 probe(s) OLD refused',
        probes: [{ probe: 'fetch.url = https://api.example.org/', code: 'invalid_arguments' }],
      },
    ])
  })

  it('should report a tightened budget and exit 0, and the reverse as looser with exit 1', async () => {
    const tightened = await changesOf('base', 'tightened-budget')
    expect(tightened).toEqual({
      code: 0,
      looser: false,
      changes: [
        {
          category: 'budget',
          subject: 'budgets.maxSteps',
          direction: 'tighter',
          detail: '100 -> 50',
          probes: [],
        },
      ],
    })
    const loosened = await changesOf('tightened-budget', 'base')
    expect(loosened.code).toBe(1)
    expect(loosened.changes.map((change) => change.direction)).toEqual(['looser'])
  })

  it('should report each direction of a two-way change in text, in two sections', async () => {
    const result = await diff('loosened-path', 'new-program', 'text')
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/NEW allows what OLD refused:\n {2}program npm: /)
    expect(result.stdout).toMatch(
      /NEW refuses what OLD allowed:\n {2}path {4}\/srv\/repo\/secrets: /,
    )
  })

  it('should decide the examples of OLD under NEW: an example OLD denies that NEW allows', async () => {
    const { code, changes } = await changesOf('git-examples', 'git-log')
    expect(code).toBe(1)
    expect(changes).toEqual([
      {
        category: 'program',
        subject: 'git',
        direction: 'looser',
        detail: 'NEW allows 1 probe(s) OLD refused',
        probes: [{ probe: 'git log', code: 'command_subcommand_not_allowed' }],
      },
    ])
  })

  it('should report a path argument turned writable and a rule allowed to run code', async () => {
    const { code, changes } = await changesOf('base', 'view-writes-exec')
    expect(code).toBe(1)
    expect(changes.map((change) => [change.category, change.subject, change.detail])).toEqual([
      ['tool', 'view_file', 'argument "file" access read -> write'],
      ['program', 'git', 'allowExec true'],
    ])
  })

  it('should report a program whose subcommands are no longer limited', async () => {
    const { code, changes } = await changesOf('base', 'git-any-subcommand')
    expect(code).toBe(1)
    expect(changes).toEqual([
      {
        category: 'program',
        subject: 'git',
        direction: 'looser',
        detail: 'NEW allows 3 probe(s) OLD refused',
        probes: [
          { probe: 'git', code: 'command_subcommand_not_allowed' },
          { probe: 'git --version', code: 'command_subcommand_not_allowed' },
          { probe: 'git unlisted-subcommand', code: 'command_subcommand_not_allowed' },
        ],
      },
    ])
  })

  it('should report a dropped signature requirement and an environment variable passed on', async () => {
    const unsigned = await changesOf('signed', 'base')
    expect([
      unsigned.code,
      unsigned.changes.map((change) => [change.category, change.subject, change.direction]),
    ]).toEqual([1, [['setting', 'approval.requireSignature', 'looser']]])
    const env = await changesOf('base', 'sandbox-env')
    expect(env.changes.map((change) => [change.subject, change.direction, change.detail])).toEqual([
      ['sandbox.env', 'looser', 'CI passed to commands'],
    ])
  })

  it('should resolve the relative roots of OLD where those of NEW resolve', async () => {
    const relative = { ...base, workspace: { ...base.workspace, roots: ['.'] } }
    await mkdir(join(folder, 'elsewhere'), { recursive: true })
    await writeFile(join(folder, 'elsewhere', 'old-copy.json'), JSON.stringify(relative))
    await writeFile(join(folder, 'relative.json'), JSON.stringify(relative))
    expect(await changesOf('elsewhere/old-copy', 'relative')).toEqual({
      code: 0,
      looser: false,
      changes: [],
    })
  })

  it('should exit 2 on a missing file', async () => {
    expect((await diff('base', 'nope', 'text')).code).toBe(2)
  })
})
