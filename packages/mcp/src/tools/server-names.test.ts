import { describe, expect, it } from 'vitest'
import { serverNames } from './server-names.js'

describe('serverNames', () => {
  it('should use names as they are without a server name', () => {
    const names = serverNames(undefined)
    expect(names.qualify('read_note')).toBe('read_note')
    expect(names.unqualify('fs__read_note')).toBe('fs__read_note')
  })

  it('should qualify names and take back only its own', () => {
    const names = serverNames('notes-2')
    expect(names.qualify('read_note')).toBe('notes-2__read_note')
    expect(names.unqualify('notes-2__read_note')).toBe('read_note')
    expect(names.unqualify('notes-2__a__b')).toBe('a__b')
    for (const other of ['read_note', 'mail__read_note', 'notes-2__', 'notes-22__x', 'notes__x'])
      expect(names.unqualify(other)).toBeUndefined()
  })

  it.each(['', 'a_b', 'a__b', '-a', 'a-', 'a b', 'a/b', 'é', 'x'.repeat(65)])(
    'should refuse the server name %j',
    (name) => {
      expect(() => serverNames(name)).toThrow(
        expect.objectContaining({ code: 'invalid_configuration' }),
      )
    },
  )
})
