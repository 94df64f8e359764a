import { mkdir } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createSandbox } from './create-sandbox.js'
import {
  createSandboxFixture,
  describeSandbox,
  initRepository,
  type SandboxFixture,
} from './test-utils/sandbox-fixture.js'

const TIMEOUT = 60_000

// Connects to each path given, sends a line and prints what came back or why it failed.
const CONNECT = [
  'import socket, sys',
  'for path in sys.argv[1:]:',
  '    s = socket.socket(socket.AF_UNIX)',
  '    try:',
  '        s.connect(path); s.sendall(b"hello\\n"); print(path, "GOT", s.recv(100))',
  '    except OSError as error:',
  '        print(path, "REFUSED", error.errno)',
].join('\n')

describeSandbox('createSandbox host sockets', () => {
  let fixture: SandboxFixture
  let servers: Server[]
  let received: string[]

  beforeEach(async () => {
    fixture = await createSandboxFixture()
    servers = []
    received = []
  })

  afterEach(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve))
    await fixture.cleanup()
  })

  async function hostListener(path: string): Promise<void> {
    const server = createServer((socket) => {
      socket.on('data', (data) => received.push(data.toString()))
      socket.end('answer\n')
    })
    await new Promise<void>((resolve) => server.listen(path, resolve))
    servers.push(server)
  }

  it(
    'should let no command reach a host listener on a socket in the workspace',
    async () => {
      initRepository(fixture.root)
      await mkdir(join(fixture.root, 'run'))
      const daemon = join(fixture.root, '.git', 'fsmonitor--daemon.ipc')
      const app = join(fixture.root, 'run', 'app.sock')
      await hostListener(daemon)
      await hostListener(app)
      const sandbox = createSandbox(
        { version: 1, workspace: { roots: [fixture.root] }, tools: {} },
        { hostHome: fixture.home, path: '/usr/bin:/bin' },
      )
      const result = await sandbox.run(['python3', '-c', CONNECT, daemon, app])
      expect(result.stdout).not.toContain('GOT')
      expect(result.stdout).toContain(`${daemon} REFUSED`)
      expect(result.stdout).toContain(`${app} REFUSED`)
      const viaSocat = await sandbox.run(['sh', '-c', `echo hi | socat - UNIX-CONNECT:${app}`])
      expect(viaSocat.exitCode).not.toBe(0)
      expect(received).toEqual([])
      // A socket the command makes itself, in the workspace, still works.
      const own = await sandbox.run([
        'python3',
        '-c',
        'import socket; s = socket.socket(socket.AF_UNIX); s.bind("own.sock"); s.listen(1); c = socket.socket(socket.AF_UNIX); c.connect("own.sock"); a, _ = s.accept(); c.sendall(b"x"); print(a.recv(1))',
      ])
      expect(own.stdout).toBe("b'x'\n")
    },
    TIMEOUT,
  )
})
