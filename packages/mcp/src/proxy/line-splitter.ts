/** How many bytes of each end of a skipped line a {@link LineSplitter} keeps. */
const EDGE_BYTES = 512

/** The first `count` bytes of `chunks` taken together. */
function firstBytes(chunks: readonly Buffer[], count: number): Buffer {
  const parts: Buffer[] = []
  let taken = 0
  for (const chunk of chunks) {
    if (taken >= count) break
    const part = chunk.subarray(0, count - taken)
    parts.push(part)
    taken += part.length
  }
  return Buffer.concat(parts, taken)
}

/** What a {@link LineSplitter} hands on, line by line. */
export interface LineSink {
  /** A complete line, without its newline and a trailing `\r`. */
  line(text: string): void
  /** A line longer than the limit, skipped as it streamed in; its first and last bytes. */
  oversized(head: string, tail: string): void
}

/**
 * Newline-delimited text from a stream, line by line, in time linear in its length: a line is
 * held as its chunks until its newline, and one longer than `maxBytes` is never held — it is
 * skipped as it streams in, keeping only its two ends, and the next line is read as usual.
 */
export class LineSplitter {
  private chunks: Buffer[] = []
  private size = 0
  private skipping = false
  private head: Buffer = Buffer.alloc(0)
  private tail: Buffer = Buffer.alloc(0)

  constructor(
    private readonly maxBytes: number,
    private readonly sink: LineSink,
  ) {}

  /** Reads a chunk, handing on every line it completes. */
  push(data: Buffer): void {
    let start = 0
    while (start < data.length) {
      const end = data.indexOf(10, start)
      this.collect(data.subarray(start, end === -1 ? data.length : end))
      if (end === -1) return
      this.endLine()
      start = end + 1
    }
  }

  /** Forgets the line in progress. */
  clear(): void {
    this.chunks = []
    this.size = 0
    this.skipping = false
    this.head = Buffer.alloc(0)
    this.tail = Buffer.alloc(0)
  }

  private collect(piece: Buffer): void {
    if (piece.length === 0) return
    if (this.skipping) {
      this.keepTail(piece)
      return
    }
    if (this.size + piece.length <= this.maxBytes) {
      this.chunks.push(piece)
      this.size += piece.length
      return
    }
    const held = [...this.chunks, piece]
    this.head = Buffer.from(firstBytes(held, EDGE_BYTES))
    this.tail = Buffer.from((held.at(-2) ?? Buffer.alloc(0)).subarray(-EDGE_BYTES))
    this.chunks = []
    this.size = 0
    this.skipping = true
    this.keepTail(piece)
  }

  private keepTail(piece: Buffer): void {
    this.tail =
      piece.length >= EDGE_BYTES
        ? Buffer.from(piece.subarray(piece.length - EDGE_BYTES))
        : Buffer.concat([this.tail, piece]).subarray(-EDGE_BYTES)
  }

  private endLine(): void {
    if (this.skipping) {
      const head = this.head.toString('utf8')
      const tail = this.tail.toString('utf8')
      this.clear()
      this.sink.oversized(head, tail)
      return
    }
    // A line that came in one chunk, as most do, is read where it lies, without a copy.
    const only = this.chunks.length === 1 ? this.chunks[0] : undefined
    const whole = only ?? Buffer.concat(this.chunks, this.size)
    const text = whole.toString('utf8')
    this.chunks = []
    this.size = 0
    this.sink.line(text.endsWith('\r') ? text.slice(0, -1) : text)
  }
}
