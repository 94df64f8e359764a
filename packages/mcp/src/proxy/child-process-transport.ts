import type { ChildProcess } from 'node:child_process'
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js'
import { deserializeLine } from './jsonrpc-kind.js'
import { LineSplitter } from './line-splitter.js'
import type { SpawnServer, SpawnServerOptions } from './spawn-server.js'

const CLOSE_GRACE_MS = 2000
/** Longest message line read from the server, as the SDK's stdio transports. */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024
/** JSON-RPC 2.0's internal error: what a request whose answer was too long is answered with. */
const INTERNAL_ERROR = -32603

const ID = String.raw`(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")`
/** A message's id as the last member of its line (`…,"id":7}`), as the SDK writes answers. */
const TAIL_ID = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID}\s*\}\s*$`)
/** A message's id as its first member, or right after `"jsonrpc":"2.0"`. */
const HEAD_ID = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}\s*[,}]`,
)

/** The id a skipped line's two ends name, when they name one the way JSON writers do. */
function idAtEdges(head: string, tail: string): RequestId | undefined {
  const match = TAIL_ID.exec(tail) ?? HEAD_ID.exec(head)
  if (match?.[1] === undefined) return undefined
  const id: unknown = JSON.parse(match[1])
  return typeof id === 'string' || typeof id === 'number' ? id : undefined
}

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
  /** Ids of the requests sent to the server that it has not answered. */
  private readonly unanswered = new Set<RequestId>()
  private readonly lines = new LineSplitter(MAX_MESSAGE_BYTES, {
    line: (text) => this.readLine(text),
    oversized: (head, tail) => this.skipped(head, tail),
  })

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
    stdout.on('data', (chunk: Buffer) => this.lines.push(chunk))
    child.on('close', () => {
      this.child = undefined
      this.unanswered.clear()
      this.onclose?.()
    })
    child.on('error', (error) => this.onerror?.(error))
    await new Promise<void>((resolve, reject) => {
      if (child.pid !== undefined) return resolve()
      child.once('spawn', () => resolve())
      child.once('error', reject)
    })
  }

  private readLine(text: string): void {
    if (text.trim() === '') return
    let message: JSONRPCMessage
    try {
      message = deserializeLine(text)
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
      return
    }
    if (!('method' in message) && message.id !== undefined) this.unanswered.delete(message.id)
    this.onmessage?.(message)
  }

  /**
   * A server line too long to read: the request it answers gets an error in its place. When the
   * line's ends name no request in flight and more than one is, none can be told apart: the
   * server is closed, so that each of them is answered as the server's end, none waits forever.
   */
  private skipped(head: string, tail: string): void {
    this.onerror?.(
      new Error(`a server message is longer than ${MAX_MESSAGE_BYTES} bytes; it was skipped`),
    )
    const named = idAtEdges(head, tail)
    const id =
      named !== undefined && this.unanswered.has(named)
        ? named
        : this.unanswered.size === 1
          ? this.unanswered.values().next().value
          : undefined
    if (id === undefined) {
      if (this.unanswered.size > 0) void this.close()
      return
    }
    this.unanswered.delete(id)
    const message = `The server's answer is longer than ${MAX_MESSAGE_BYTES} bytes; it was not read. Ask for less at a time (a part of the file, a narrower query).`
    this.onmessage?.({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message } })
  }

  /** Notes a request sent, and forgets one the client cancelled (its answer may never come). */
  private track(message: JSONRPCMessage): void {
    if (!('method' in message)) return
    if ('id' in message) this.unanswered.add(message.id)
    else if (message.method === 'notifications/cancelled') {
      const id: unknown = message.params?.requestId
      if (typeof id === 'string' || typeof id === 'number') this.unanswered.delete(id)
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin
    if (stdin === undefined || stdin === null) return Promise.reject(new Error('Not connected'))
    this.track(message)
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
    this.lines.clear()
    this.unanswered.clear()
  }
}
