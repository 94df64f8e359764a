import { describe, expect, it } from 'vitest'
import { violationsFromStderr } from './stderr-violations.js'

describe('violationsFromStderr', () => {
  it('should report refused writes, reads and connections with their target', () => {
    expect(
      violationsFromStderr(
        [
          'sh: 1: cannot create /srv/out/x: Read-only file system',
          'cat: /srv/repo/.env: Permission denied',
          'curl: (6) Could not resolve host: example.com',
          'all good',
        ].join('\n'),
      ),
    ).toEqual([
      {
        kind: 'write',
        message: 'sh: 1: cannot create /srv/out/x: Read-only file system',
        target: '/srv/out/x',
      },
      { kind: 'read', message: 'cat: /srv/repo/.env: Permission denied', target: '/srv/repo/.env' },
      { kind: 'network', message: 'curl: (6) Could not resolve host: example.com' },
    ])
  })

  it('should report nothing for ordinary output and stop at the limit', () => {
    expect(violationsFromStderr('warning: something\n')).toEqual([])
    expect(violationsFromStderr('Permission denied\n'.repeat(50), 3)).toHaveLength(3)
  })
})
