import { PassThrough, Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { StdioLineTransport } from './stdio-line-transport.js'

/** An output that finishes each write later, so it is full after every write until it drains. */
function fullOutput(): Writable & { readonly written: string[] } {
  const written: string[] = []
  const output = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString('utf8'))
      setImmediate(callback)
    },
  })
  return Object.assign(output, { written })
}

describe('StdioLineTransport', () => {
  it('should wait for one drain however many answers are sent while the output is full', async () => {
    const output = fullOutput()
    const transport = new StdioLineTransport(new PassThrough(), output)
    const sends = Array.from({ length: 50 }, (_, index) =>
      transport.send({ jsonrpc: '2.0', id: index, result: {} }),
    )
    expect(output.listenerCount('drain')).toBeLessThanOrEqual(2)
    await Promise.all(sends)
    expect(output.written).toHaveLength(50)
    expect(JSON.parse(output.written[49] as string)).toEqual({ jsonrpc: '2.0', id: 49, result: {} })
    await transport.close()
  })
})
