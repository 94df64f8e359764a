import { deserializeLine } from './jsonrpc-kind.js'

/** Longest text a {@link LineBuffer} holds without a newline, as the SDK's stdio transports. */
const MAX_BUFFER_BYTES = 10 * 1024 * 1024

/**
 * The SDK's `ReadBuffer` (newline-delimited JSON-RPC from a stream, at most 10 MiB held, a
 * trailing `\r` dropped, a bad line consumed as it throws), reading each line with
 * {@link deserializeLine}: the same messages and errors without a schema parse of plain ones.
 */
export class LineBuffer {
  private buffer: Buffer | undefined

  /** Adds a chunk; throws, emptied, when the text held would pass the limit. */
  append(chunk: Buffer): void {
    const size = (this.buffer?.length ?? 0) + chunk.length
    if (size > MAX_BUFFER_BYTES) {
      this.clear()
      throw new Error(`ReadBuffer exceeded maximum size of ${MAX_BUFFER_BYTES} bytes`)
    }
    this.buffer = this.buffer === undefined ? chunk : Buffer.concat([this.buffer, chunk])
  }

  /** The next complete line as a message, null when none is complete; throws for a bad line. */
  readMessage() {
    if (this.buffer === undefined) return null
    const index = this.buffer.indexOf(10)
    if (index === -1) return null
    const line = this.buffer.toString('utf8', 0, index).replace(/\r$/, '')
    this.buffer = this.buffer.subarray(index + 1)
    return deserializeLine(line)
  }

  clear(): void {
    this.buffer = undefined
  }
}
