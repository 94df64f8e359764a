import { describe, expect, it } from 'vitest'
import { parseExtractedAnswer } from './create-model-step-tools.js'

describe('parseExtractedAnswer', () => {
  it('should read {"value": …}, a bare JSON value and fenced JSON', () => {
    expect(parseExtractedAnswer('{"value": 3}')).toBe(3)
    expect(parseExtractedAnswer('"src/a.js"')).toBe('src/a.js')
    expect(parseExtractedAnswer('```json\n{"value": ["a"]}\n```')).toEqual(['a'])
    expect(parseExtractedAnswer('src/a.js')).toBe('src/a.js')
  })
})
