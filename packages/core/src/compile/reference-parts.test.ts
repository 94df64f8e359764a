import { describe, expect, it } from 'vitest'
import { ReferenceParts, referenceField } from './reference-parts.js'

const field = (target: string) => referenceField(target, target.indexOf('.'))

describe('referenceField', () => {
  it('should read the field path of a well-formed target', () => {
    expect(field('fetch')).toEqual([])
    expect(field('fetch.output')).toEqual([])
    expect(field('fetch.output.text')).toEqual(['text'])
    expect(field('fetch.output.a.b')).toEqual(['a', 'b'])
  })

  it('should refuse a malformed target', () => {
    for (const target of [
      'fetch.',
      'fetch.outpu',
      'fetch.outputs',
      'fetch.output.',
      'fetch.output..a',
      'fetch.input.a',
      'fetch.output.__proto__',
      'fetch.output.a.constructor',
      `fetch.output.${Array.from({ length: 33 }, () => 'a').join('.')}`,
    ])
      expect(field(target), target).toBeUndefined()
  })
})

describe('ReferenceParts', () => {
  it('should share one frozen field between equal targets and refuse a malformed one', () => {
    const parts = new ReferenceParts()
    const first = parts.field('a.output.text', 1)
    expect(first).toEqual(['text'])
    expect(Object.isFrozen(first)).toBe(true)
    expect(parts.field('bb.output.text', 2)).toBe(first)
    expect(parts.field('a.output.', 1)).toBeUndefined()
    expect(parts.field('a.output.', 1)).toBeUndefined()
  })

  it('should read the field of each target when targets alternate between fields', () => {
    const parts = new ReferenceParts()
    for (const [target, expected] of [
      ['a.output.text', ['text']],
      ['b.output.text', ['text']],
      ['c.output.size', ['size']],
      ['dd.output', []],
      ['e.output.', undefined],
      ['f.output.text', ['text']],
      ['g', []],
    ] as const)
      expect(parts.field(target, target.indexOf('.')), target).toEqual(expected)
  })

  it('should share a top-level path and copy a nested one', () => {
    const parts = new ReferenceParts()
    const top = parts.path([], 'content')
    expect(top).toEqual(['content'])
    expect(Object.isFrozen(top)).toBe(true)
    expect(parts.path([], 'content')).toBe(top)
    const nested = parts.path(['items'], 0)
    expect(nested).toEqual(['items', 0])
    expect(parts.path(['items'], 0)).not.toBe(nested)
  })
})
