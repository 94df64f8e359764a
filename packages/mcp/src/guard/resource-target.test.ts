import { posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { MAX_RESOURCE_URI_LENGTH, resourceTarget } from './resource-target.js'

// Pieces that parsers are known to read differently, and plain ones.
const PIECES = [
  'a',
  '.',
  '..',
  '%2e',
  '%2E%2e',
  '.%2e',
  '',
  '%2f',
  '%5C',
  '\\',
  '?x',
  '#y',
  '%00',
  '%25',
  '%252e%252e',
  'ü',
  '%C3%BC',
  '%C0%AE',
  'C|',
  'C:',
  ';b',
  '@',
  '%zz',
  '%20',
]

function* uris(): Generator<string> {
  for (const first of PIECES)
    for (const second of PIECES)
      for (const third of ['', ...PIECES]) {
        const path = third === '' ? `/${first}/${second}` : `/${first}/${second}/${third}`
        yield `file://${path}`
      }
}

describe('resourceTarget', () => {
  it('should read a file: URI as a WHATWG URL and a hand-written decoder both would', () => {
    let accepted = 0
    for (const uri of uris()) {
      const target = resourceTarget(uri)
      if (target.kind !== 'file') continue
      accepted += 1
      const path = target.path.length > 1 ? target.path.replace(/\/$/, '') : target.path
      expect(fileURLToPath(new URL(uri)).replace(/\/$/, ''), uri).toBe(path)
      expect(posix.resolve(decodeURIComponent(uri.slice('file://'.length))), uri).toBe(path)
    }
    expect(accepted).toBeGreaterThan(100)
  })

  it.each([
    ['file:///srv/ws/README.md', '/srv/ws/README.md'],
    ['FILE:///srv/ws/README.md', '/srv/ws/README.md'],
    ['File:///srv/ws/a%20b.txt', '/srv/ws/a b.txt'],
    ['file:///srv/ws/src/', '/srv/ws/src/'],
    ['file:///srv/ws/%C3%BC', '/srv/ws/ü'],
  ])('should read %s as the path %s', (uri, path) => {
    expect(resourceTarget(uri)).toEqual({ kind: 'file', path })
  })

  it.each([
    'file:///srv/ws/../etc/passwd',
    'file:///srv/ws/%2e%2e/etc/passwd',
    'file:///srv/ws/.%2E/etc/passwd',
    'file:///srv/ws/./README.md',
    'file:///srv/ws//README.md',
    'file://localhost/etc/passwd',
    'file://localhost/srv/ws/README.md',
    'file://evil.example/srv/ws/README.md',
    'file:/srv/ws/README.md',
    'file:srv/ws/README.md',
    'file:////srv/ws/README.md',
    'file:///srv/ws/README.md#/../../etc/passwd',
    'file:///srv/ws/README.md?/../../etc/passwd',
    'file:///srv/ws\\..\\..\\etc\\passwd',
    'file:///srv/ws/%2fetc',
    'file:///srv/ws/%5c..',
    'file:///srv/ws/README.md%00.txt',
    'file:///srv/ws/README.md\u0000.txt',
    'file:///srv/ws/line\nbreak',
    'file:///srv/ws/%zz',
    'file:///srv/ws/%C0%AE%C0%AE/etc',
    'file:///C|/etc',
    `file:///srv/ws/${'a'.repeat(MAX_RESOURCE_URI_LENGTH)}`,
    '/srv/ws/README.md',
    '',
  ])('should refuse %j', (uri) => {
    expect(resourceTarget(uri).kind).toBe('invalid')
  })

  it('should refuse a URI that is not a string', () => {
    for (const uri of [undefined, null, 42, {}, ['file:///srv/ws/README.md']])
      expect(resourceTarget(uri).kind).toBe('invalid')
  })

  it('should name the scheme of any other URI, in lower case', () => {
    expect(resourceTarget('HTTPS://example.com/a')).toEqual({ kind: 'scheme', scheme: 'https' })
    expect(resourceTarget('note://today')).toEqual({ kind: 'scheme', scheme: 'note' })
  })
})
