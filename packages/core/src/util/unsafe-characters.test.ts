import {
  hasUnsafeCharacter,
  hasUnsafeCommandCharacter,
  isUnsafeCodePoint,
  replaceUnsafeCharacters,
} from '@plan/shell/common'
import { describe, expect, it } from 'vitest'

describe('hasUnsafeCharacter', () => {
  it.each([
    ['NUL', 0x0],
    ['ESC', 0x1b],
    ['DEL', 0x7f],
    ['C1 NEL', 0x85],
    ['soft hyphen', 0xad],
    ['Arabic letter mark', 0x61c],
    ['zero width space', 0x200b],
    ['left-to-right mark', 0x200e],
    ['right-to-left mark', 0x200f],
    ['line separator', 0x2028],
    ['paragraph separator', 0x2029],
    ['right-to-left override', 0x202e],
    ['word joiner', 0x2060],
    ['invisible plus', 0x2064],
    ['inhibit symmetric swapping', 0x206a],
    ['first strong isolate', 0x2068],
    ['pop directional isolate', 0x2069],
    ['byte order mark', 0xfeff],
    ['interlinear annotation', 0xfff9],
    ['tag latin A', 0xe0041],
    ['variation selector 1', 0xfe00],
    ['variation selector 17', 0xe0100],
    ['Hangul filler', 0x3164],
    ['lone surrogate', 0xd800],
  ])('should refuse %s', (_name, codePoint) => {
    expect(isUnsafeCodePoint(codePoint)).toBe(true)
    expect(hasUnsafeCharacter(`a${String.fromCodePoint(codePoint)}b`)).toBe(true)
  })

  it.each(['plain.txt', 'résumé', '資料', 'emoji 😀', 'heart ❤️', 'a b', 'x\u00a0y', 'ﬁle'])(
    'should accept %j',
    (value) => {
      expect(hasUnsafeCharacter(value)).toBe(false)
    },
  )
})

describe('hasUnsafeCommandCharacter', () => {
  it('should leave tab and newline to the command grammar and refuse the rest', () => {
    expect(hasUnsafeCommandCharacter('git\tstatus\nls')).toBe(false)
    expect(hasUnsafeCommandCharacter('git status\r')).toBe(true)
    expect(hasUnsafeCommandCharacter('git commit -m "\u202eexe.txt"')).toBe(true)
  })
})

describe('replaceUnsafeCharacters', () => {
  it('should replace every unsafe character and keep the rest', () => {
    expect(replaceUnsafeCharacters('a\u001b[31mb\u202ec\u{e0041}d é')).toBe('a?[31mb?c?d é')
    expect(replaceUnsafeCharacters('x\ny', ' ')).toBe('x y')
  })
})
