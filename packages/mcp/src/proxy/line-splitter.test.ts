import { describe, expect, it } from 'vitest'
import { LineSplitter } from './line-splitter.js'

type Event = { line: string } | { head: string; tail: string }

function splitter(maxBytes: number): { readonly events: Event[]; readonly lines: LineSplitter } {
  const events: Event[] = []
  const lines = new LineSplitter(maxBytes, {
    line: (text) => events.push({ line: text }),
    oversized: (head, tail) => events.push({ head, tail }),
  })
  return { events, lines }
}

describe('LineSplitter', () => {
  it('should hand on lines split across chunks, without their newline and trailing \\r', () => {
    const { events, lines } = splitter(100)
    for (const chunk of ['{"a":', '1}\r\n{"b"', ':2}\n\n', '{"c":3}'])
      lines.push(Buffer.from(chunk))
    expect(events).toEqual([{ line: '{"a":1}' }, { line: '{"b":2}' }, { line: '' }])
    lines.push(Buffer.from('\n'))
    expect(events.at(-1)).toEqual({ line: '{"c":3}' })
  })

  it('should skip a line over the limit, keep its two ends and read the next line', () => {
    const { events, lines } = splitter(1024)
    const long = `{"id":7,"text":"${'x'.repeat(5000)}","end":"y"}`
    for (let at = 0; at < long.length; at += 100) lines.push(Buffer.from(long.slice(at, at + 100)))
    lines.push(Buffer.from('\n{"id":8}\n'))
    expect(events).toHaveLength(2)
    const skipped = events[0] as { head: string; tail: string }
    expect(skipped.head).toBe(long.slice(0, 512))
    expect(skipped.tail).toBe(long.slice(-512))
    expect(events[1]).toEqual({ line: '{"id":8}' })
  })

  it('should keep the tail of a line that ends just past the limit', () => {
    const { events, lines } = splitter(10)
    lines.push(Buffer.from('0123456789'))
    lines.push(Buffer.from('ab\nok\n'))
    expect(events).toEqual([{ head: '0123456789ab', tail: '0123456789ab' }, { line: 'ok' }])
  })

  it('should allow a line of exactly the limit', () => {
    const { events, lines } = splitter(10)
    lines.push(Buffer.from('0123456789\n'))
    expect(events).toEqual([{ line: '0123456789' }])
  })

  it('should forget the line in progress when cleared', () => {
    const { events, lines } = splitter(10)
    lines.push(Buffer.from('0123456789abc'))
    lines.clear()
    lines.push(Buffer.from('ok\n'))
    expect(events).toEqual([{ line: 'ok' }])
  })
})
