import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe } from 'vitest'
import { findProgram } from '../find-program.js'

/**
 * `describe` for tests that need bubblewrap: they run when it is installed, and also under
 * `CI=true` when it is not, so CI fails instead of skipping.
 */
export const describeSandbox: typeof describe =
  findProgram('bwrap', process.env.PATH ?? '') !== undefined || process.env.CI === 'true'
    ? describe
    : (describe.skip as typeof describe)

if (describeSandbox !== describe) {
  process.emitWarning('bubblewrap (bwrap) is not installed: the sandbox tests are skipped.')
}

/** A temporary host: a workspace, an outside folder, and a fake host home with a key. */
export interface SandboxFixture {
  readonly base: string
  readonly root: string
  readonly outside: string
  readonly home: string
  readonly secret: string
  cleanup(): Promise<void>
}

export const SECRET = 'S3CRET-7f3a9c'

export async function createSandboxFixture(): Promise<SandboxFixture> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'plan-sandbox-')))
  const root = join(base, 'ws')
  const outside = join(base, 'outside')
  const home = join(base, 'home')
  for (const folder of [root, outside, join(home, '.ssh')]) await mkdir(folder, { recursive: true })
  await writeFile(join(home, '.ssh', 'id_rsa'), `-----BEGIN KEY-----\n${SECRET}-ssh\n`)
  await writeFile(join(root, '.env'), `TOKEN=${SECRET}-env\n`)
  await writeFile(join(outside, 'secret.txt'), `${SECRET}-outside\n`)
  await writeFile(join(root, 'a.txt'), 'hello\n')
  return {
    base,
    root,
    outside,
    home,
    secret: SECRET,
    cleanup: () => rm(base, { recursive: true, force: true }),
  }
}

/** Makes `root` a git repository with one commit of `files`, from the host (outside any sandbox). */
export function initRepository(root: string, files: readonly string[] = ['a.txt']): void {
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: root,
      env: { ...gitIdentity(), PATH: process.env.PATH ?? '' },
    })
  git('init', '-q', '-b', 'main')
  git('add', ...files)
  git('commit', '-q', '-m', 'first')
}

/** A git identity passed in a command's environment. */
export function gitIdentity(): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  }
}

/** A TCP listener on 127.0.0.1 that counts the connections it receives. */
export interface Listener {
  readonly port: number
  readonly connections: () => number
  close(): Promise<void>
}

export async function listen(): Promise<Listener> {
  let count = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    count += 1
    sockets.add(socket)
    socket.end('HTTP/1.1 200 OK\r\nContent-Length: 9\r\nConnection: close\r\n\r\nlistener\n')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    port,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
