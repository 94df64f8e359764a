import { describe, expect, it } from 'vitest'
import { parseCliArgs } from './parse-cli-args.js'

describe('parseCliArgs', () => {
  it('should read the proxy options and keep everything after -- as the server argv', () => {
    const parsed = parseCliArgs([
      '--policy',
      'p.json',
      '--plan',
      'plan.json',
      '--audit',
      'a.jsonl',
      '--sandbox',
      '--',
      'npx',
      '-y',
      'server',
      '--policy',
      '/x',
    ])
    expect(parsed).toEqual({
      success: true,
      command: {
        kind: 'proxy',
        policy: 'p.json',
        plan: 'plan.json',
        audit: 'a.jsonl',
        sandbox: true,
        sandboxRead: [],
        server: ['npx', '-y', 'server', '--policy', '/x'],
        url: undefined,
        listen: undefined,
        host: '127.0.0.1',
        maxSessions: undefined,
        sessionIdle: undefined,
        keepalive: undefined,
        resources: undefined,
        resourceSchemes: [],
        serverName: undefined,
        store: undefined,
        runId: undefined,
        keys: {},
      },
    })
  })

  it('should read init with its defaults', () => {
    expect(parseCliArgs(['init', '--', 'server'])).toEqual({
      success: true,
      command: {
        kind: 'init',
        output: 'plan-mcp.policy.json',
        root: '.',
        force: false,
        serverName: undefined,
        server: ['server'],
      },
    })
  })

  it('should read pin with its policy, server name and --write', () => {
    expect(
      parseCliArgs(['pin', '--policy', 'p.json', '--server-name', 'fs', '--write', '--', 's']),
    ).toEqual({
      success: true,
      command: { kind: 'pin', policy: 'p.json', serverName: 'fs', write: true, server: ['s'] },
    })
    expect(parseCliArgs(['pin', '--', 's'])).toMatchObject({
      success: false,
      message: expect.stringContaining('missing --policy'),
    })
    expect(parseCliArgs(['pin', '--policy', 'p.json', '--sandbox', '--', 's'])).toMatchObject({
      success: false,
    })
  })

  it('should read --server-name for the proxy and init', () => {
    expect(parseCliArgs(['--policy', 'p', '--server-name', 'fs', '--', 's'])).toMatchObject({
      success: true,
      command: { kind: 'proxy', serverName: 'fs' },
    })
    expect(parseCliArgs(['init', '--server-name', 'fs', '--', 's'])).toMatchObject({
      success: true,
      command: { kind: 'init', serverName: 'fs' },
    })
  })

  it('should read --listen and --host', () => {
    const parsed = parseCliArgs(['--policy', 'p.json', '--listen', '0', '--host', '::1', '--', 's'])
    expect(parsed).toMatchObject({ success: true, command: { listen: 0, host: '::1' } })
  })

  it('should read --max-sessions with --listen', () => {
    const parsed = parseCliArgs([
      '--policy',
      'p.json',
      '--listen',
      '0',
      '--max-sessions',
      '8',
      '--',
      's',
    ])
    expect(parsed).toMatchObject({ success: true, command: { listen: 0, maxSessions: 8 } })
  })

  it('should read --session-idle in seconds with --listen, 0 for never', () => {
    for (const seconds of ['0', '90', '2147483']) {
      const parsed = parseCliArgs([
        '--policy',
        'p.json',
        '--listen',
        '0',
        '--session-idle',
        seconds,
        '--',
        's',
      ])
      expect(parsed).toMatchObject({ success: true, command: { sessionIdle: Number(seconds) } })
    }
  })

  it('should read --keepalive in seconds with --listen, 0 for none', () => {
    for (const seconds of ['0', '15', '2147483']) {
      const argv = ['--policy', 'p.json', '--listen', '0', '--keepalive', seconds, '--', 's']
      expect(parseCliArgs(argv)).toMatchObject({
        success: true,
        command: { keepalive: Number(seconds) },
      })
    }
  })

  it('should read --resources workspace with each --resource-scheme', () => {
    const parsed = parseCliArgs([
      '--policy',
      'p.json',
      '--resources',
      'workspace',
      '--resource-scheme',
      'https',
      '--resource-scheme',
      'note',
      '--',
      's',
    ])
    expect(parsed).toMatchObject({
      success: true,
      command: { resources: 'workspace', resourceSchemes: ['https', 'note'] },
    })
  })

  it('should take --url instead of a server command', () => {
    const parsed = parseCliArgs(['--policy', 'p.json', '--url', 'https://host/mcp'])
    expect(parsed).toMatchObject({
      success: true,
      command: { server: [], url: 'https://host/mcp' },
    })
  })

  it.each([
    [['--policy', 'p.json'], 'missing the server command'],
    [['--', 'server'], 'missing --policy'],
    [['--policy', 'p.json', 'server'], 'unexpected argument'],
    [['--policy', 'p.json', '--unknown', '--', 'server'], 'Unknown option'],
    [['init', '--policy', 'p.json', '--', 'server'], 'Unknown option'],
    [['--policy', 'p.json', '--url', 'https://h/mcp', '--', 'server'], 'not both'],
    [['--policy', 'p.json', '--url', 'https://h/mcp', '--sandbox'], 'cannot apply to --url'],
    [['init', '--url', 'https://h/mcp'], 'Unknown option'],
    [['--policy', 'p.json', '--listen', '99999', '--', 'server'], 'not a port'],
    [['--policy', 'p.json', '--listen', 'http', '--', 'server'], 'not a port'],
    ...['0', '-1', '1.5', '1e3', '0x10', ' 8', '', 'many', '9007199254740993'].map(
      (count): [string[], string] => [
        ['--policy', 'p.json', '--listen', '0', `--max-sessions=${count}`, '--', 'server'],
        `--max-sessions ${JSON.stringify(count)} is not a whole number of at least 1`,
      ],
    ),
    [['--policy', 'p.json', '--listen', '0', '--max-sessions', '--', 'server'], 'argument missing'],
    [['--policy', 'p.json', '--listen', '0', '--max-sessions', '-1', '--', 'server'], 'ambiguous'],
    [['--policy', 'p.json', '--max-sessions', '8', '--', 'server'], 'add --listen'],
    ...['-1', '1.5', '2147484', '1e3', '', 'never', 'Infinity'].map(
      (seconds): [string[], string] => [
        ['--policy', 'p.json', '--listen', '0', `--session-idle=${seconds}`, '--', 'server'],
        `--session-idle ${JSON.stringify(seconds)} is not a whole number of seconds from 0 to 2147483`,
      ],
    ),
    ...['-1', '1.5', '2147484', 'never'].map((seconds): [string[], string] => [
      ['--policy', 'p.json', '--listen', '0', `--keepalive=${seconds}`, '--', 'server'],
      `--keepalive ${JSON.stringify(seconds)} is not a whole number of seconds from 0 to 2147483`,
    ]),
    [
      ['--policy', 'p.json', '--keepalive', '15', '--', 'server'],
      '--keepalive applies to the sessions of --listen',
    ],
    [['--policy', 'p.json', '--resources', 'all', '--', 'server'], 'neither pass nor workspace'],
    [
      ['--policy', 'p.json', '--resource-scheme', 'https', '--', 'server'],
      'add --resources workspace',
    ],
    [
      ['--policy', 'p.json', '--resources', 'pass', '--resource-scheme', 'https', '--', 'server'],
      'add --resources workspace',
    ],
    [
      ['--policy', 'p.json', '--session-idle', '60', '--', 'server'],
      '--session-idle applies to the sessions of --listen',
    ],
  ])('should refuse %j', (argv, message) => {
    const parsed = parseCliArgs(argv)
    expect(parsed.success).toBe(false)
    expect(parsed.success ? '' : parsed.message).toContain(message)
  })
})

describe('parseCliArgs (--store)', () => {
  const server = ['--', 'server']

  it('should read --store with --run-id and each --key', () => {
    const parsed = parseCliArgs([
      '--policy',
      'p.json',
      '--store',
      'postgres://plan@db/plan',
      '--run-id',
      'desk-1',
      '--key',
      'user=ada',
      '--key',
      'tenant=acme=1',
      ...server,
    ])
    expect(parsed.success && parsed.command.kind === 'proxy' && parsed.command).toMatchObject({
      store: 'postgres://plan@db/plan',
      runId: 'desk-1',
      keys: { user: 'ada', tenant: 'acme=1' },
    })
  })

  it('should read --store with --listen, its --run-id naming the runs of the sessions', () => {
    const flags = ['--store', 'postgres://db', '--listen', '0', '--run-id', 'desk']
    const parsed = parseCliArgs(['--policy', 'p.json', ...flags, ...server])
    expect(parsed.success && parsed.command.kind === 'proxy' && parsed.command).toMatchObject({
      store: 'postgres://db',
      listen: 0,
      runId: 'desk',
    })
  })

  it('should refuse a store that is not PostgreSQL, and run flags without a store', () => {
    const cases = [
      [['--store', 'mysql://db'], 'not a postgres:// URL'],
      [['--listen', '0', '--run-id', 'r'], 'add --store'],
      [['--run-id', 'r'], 'add --store'],
      [['--key', 'user=ada'], 'add --store'],
      [['--store', 'postgres://db', '--key', 'user'], 'is not name=value'],
      [['--store', 'postgres://db', '--key', '=ada'], 'is not name=value'],
    ] as const
    for (const [flags, message] of cases) {
      const parsed = parseCliArgs(['--policy', 'p.json', ...flags, ...server])
      expect(parsed.success ? 'parsed' : parsed.message).toContain(message)
    }
  })
})

describe('parseCliArgs (--sandbox-read)', () => {
  it('should collect every --sandbox-read folder and require --sandbox with them', () => {
    const parsed = parseCliArgs([
      '--policy',
      'p.json',
      '--sandbox',
      '--sandbox-read',
      'a',
      '--sandbox-read',
      'b',
      '--',
      'server',
    ])
    expect(parsed).toMatchObject({
      success: true,
      command: { sandbox: true, sandboxRead: ['a', 'b'] },
    })
    expect(
      parseCliArgs(['--policy', 'p.json', '--sandbox-read', 'a', '--', 'server']),
    ).toMatchObject({
      success: false,
      message: expect.stringContaining('add --sandbox'),
    })
  })
})
