import type { Readable, Writable } from 'node:stream'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { readMessage } from './jsonrpc-kind.js'
import { LineSplitter } from './line-splitter.js'

/** Options of {@link StdioLineTransport}. */
export interface StdioLineTransportOptions {
  /** Longest message line, in bytes; a longer one is refused and skipped. Default 10 MiB. */
  readonly maxMessageBytes?: number
}

/** JSON-RPC 2.0 error codes. */
const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600

/** A message id, when the line is an object that carries a usable one. */
function idOf(value: unknown): string | number | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null
  const id = (value as { id?: unknown }).id
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null
}

/**
 * The client side of `plan-mcp` over stdio: one JSON-RPC message per line. Unlike the SDK's
 * stdio transport, a bad line never ends or wedges the session: a line that is not JSON is
 * answered with a JSON-RPC parse error, one that is not a JSON-RPC message with an invalid
 * request error, and one longer than `maxMessageBytes` is skipped as it streams in (never held
 * in memory) and answered with an invalid request error. Each is reported once to `onerror`,
 * with a one-line message; the next line is read as usual.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private readonly maxMessageBytes: number
  private readonly lines: LineSplitter
  private line = 0
  private closed = false
  /** Resolves when the output, full after a write, has drained. */
  private drained: Promise<void> | undefined

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    options: StdioLineTransportOptions = {},
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? 10 * 1024 * 1024
    this.lines = new LineSplitter(this.maxMessageBytes, {
      line: (text) => this.endLine(text),
      oversized: () => this.skipped(),
    })
  }

  private readonly onData = (chunk: Buffer | string) =>
    this.lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)

  private readonly onStreamError = (error: Error) => this.onerror?.(error)

  private readonly onEnd = () => void this.close()

  async start(): Promise<void> {
    this.stdin.on('data', this.onData)
    this.stdin.on('error', this.onStreamError)
    this.stdin.on('end', this.onEnd)
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.stdout.write(`${JSON.stringify(message)}\n`)) return Promise.resolve()
    // Every send made while the output is full waits for the same drain: one listener, not one each.
    this.drained ??= new Promise<void>((resolve) =>
      this.stdout.once('drain', () => {
        this.drained = undefined
        resolve()
      }),
    )
    return this.drained
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.stdin.off('data', this.onData)
    this.stdin.off('error', this.onStreamError)
    this.stdin.off('end', this.onEnd)
    this.stdin.pause()
    this.lines.clear()
    this.onclose?.()
  }

  private skipped(): void {
    this.line += 1
    this.refuse(
      INVALID_REQUEST,
      null,
      `message is longer than ${this.maxMessageBytes} bytes`,
      'was skipped',
    )
  }

  private endLine(text: string): void {
    this.line += 1
    if (text.trim() === '') return
    this.deliver(text)
  }

  private deliver(text: string): void {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      this.refuse(PARSE_ERROR, null, `not JSON (${(error as Error).message})`, 'was skipped')
      return
    }
    const message = readMessage(value)
    if (message === undefined) {
      this.refuse(INVALID_REQUEST, idOf(value), 'not a JSON-RPC 2.0 message', 'was skipped')
      return
    }
    this.onmessage?.(message)
  }

  private refuse(code: number, id: string | number | null, why: string, what: string): void {
    const reason = why.replace(/\s+/g, ' ').slice(0, 200)
    this.onerror?.(new Error(`input line ${this.line} is ${reason}; it ${what}`))
    const message = `Invalid input line ${this.line}: ${reason}.`
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage)
  }
}
