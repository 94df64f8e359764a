import type { ChildProcess } from 'node:child_process'
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { LineBuffer } from './line-buffer.js'
import type { SpawnServer, SpawnServerOptions } from './spawn-server.js'

const CLOSE_GRACE_MS = 2000

function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('close', () => resolve()))
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
}

/**
 * An MCP client transport over the stdio of a process started by a {@link SpawnServer}
 * (newline-delimited JSON-RPC, as the stdio transport of the MCP specification).
 */
export class ChildProcessTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private child: ChildProcess | undefined
  private readonly buffer = new LineBuffer()

  constructor(
    private readonly argv: readonly string[],
    private readonly spawnServer: SpawnServer,
    private readonly options: SpawnServerOptions = {},
  ) {}

  /** The server's process, once started. */
  get process(): ChildProcess | undefined {
    return this.child
  }

  async start(): Promise<void> {
    if (this.child !== undefined) throw new Error('The server process is already started.')
    const child = this.spawnServer(this.argv, this.options)
    this.child = child
    const { stdin, stdout } = child
    if (stdin === null || stdout === null) {
      child.kill('SIGKILL')
      throw new Error('The server process must be spawned with piped stdin and stdout.')
    }
    stdin.on('error', (error) => this.onerror?.(error))
    stdout.on('error', (error) => this.onerror?.(error))
    stdout.on('data', (chunk: Buffer) => this.receive(chunk))
    child.on('close', () => {
      this.child = undefined
      this.onclose?.()
    })
    child.on('error', (error) => this.onerror?.(error))
    await new Promise<void>((resolve, reject) => {
      if (child.pid !== undefined) return resolve()
      child.once('spawn', () => resolve())
      child.once('error', reject)
    })
  }

  private receive(chunk: Buffer): void {
    try {
      this.buffer.append(chunk)
      for (;;) {
        const message = this.buffer.readMessage()
        if (message === null) break
        this.onmessage?.(message)
      }
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin
    if (stdin === undefined || stdin === null) return Promise.reject(new Error('Not connected'))
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once('drain', resolve)
    })
  }

  /** Ends the server's stdin, then escalates to SIGTERM and SIGKILL if it does not exit. */
  async close(): Promise<void> {
    const child = this.child
    if (child === undefined) return
    const exited = waitForExit(child)
    child.stdin?.end()
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      await Promise.race([exited, delay(CLOSE_GRACE_MS)])
      if (child.exitCode !== null || child.signalCode !== null) break
      child.kill(signal)
    }
    this.buffer.clear()
  }
}
