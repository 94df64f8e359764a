import { createHash, createHmac } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createSha256,
  equalBytes,
  fromHex,
  hmacSha256,
  hmacSha256Portable,
  sha256Hex,
  sha256Portable,
  toHex,
  utf8,
} from './portable-crypto.js'

describe('sha256Portable', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ])('should hash %j to the FIPS 180-4 test vector', (text, expected) => {
    expect(toHex(sha256Portable(utf8(text)))).toBe(expected)
  })

  it('should agree with node:crypto on generated input of every length around the blocks', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(toHex(sha256Portable(bytes))).toBe(createHash('sha256').update(bytes).digest('hex'))
      }),
      { numRuns: 500 },
    )
  })
})

describe('hmacSha256Portable', () => {
  it('should agree with node:crypto for short and long keys', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 150 }), fc.string(), (key, text) => {
        const expected = createHmac('sha256', key).update(text).digest('hex')
        expect(toHex(hmacSha256Portable(key, utf8(text)))).toBe(expected)
        expect(toHex(hmacSha256(key, text))).toBe(expected)
      }),
      { numRuns: 300 },
    )
  })
})

describe('sha256Hex', () => {
  it('should hash the UTF-8 bytes of a string', () => {
    expect(sha256Hex('é')).toBe(createHash('sha256').update('é').digest('hex'))
  })

  it('should agree with a node:crypto hash object on any string, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(sha256Hex(text)).toBe(createHash('sha256').update(text).digest('hex'))
      }),
      { numRuns: 300 },
    )
  })
})

describe('equalBytes', () => {
  it('should be true only for the same bytes', () => {
    expect(equalBytes(fromHex('00ff'), new Uint8Array([0, 255]))).toBe(true)
    expect(equalBytes(fromHex('00ff'), fromHex('00fe'))).toBe(false)
    expect(equalBytes(fromHex('00'), fromHex('0000'))).toBe(false)
  })
})

describe('createSha256', () => {
  it('should give the digest of the whole text however it is split', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 8 }), (pieces) => {
        const hash = createSha256()
        for (const piece of pieces) hash.update(piece)
        expect(hash.digestHex()).toBe(sha256Hex(pieces.join('')))
      }),
    )
  })

  it('should give the node:crypto digest of a long text that crosses the streaming threshold', () => {
    const pieces = ['é'.repeat(40_000), 'a'.repeat(30_000), '€'.repeat(10), 'z'.repeat(50_000)]
    const hash = createSha256()
    for (const piece of pieces) hash.update(piece)
    expect(hash.digestHex()).toBe(createHash('sha256').update(pieces.join('')).digest('hex'))
  })
})
