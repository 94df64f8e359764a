import { describe, expect, it } from 'vitest'
import { lineDiff } from './definition-diff.js'

describe('lineDiff', () => {
  it('should mark removed and added lines around the kept ones', () => {
    expect(lineDiff('a\nb\nc', 'a\nB\nc\nd')).toEqual(['  a', '- b', '+ B', '  c', '+ d'])
  })

  it('should show every line as added when nothing was kept, and nothing changed as kept', () => {
    expect(lineDiff('', 'x\ny')).toEqual(['+ x', '+ y'])
    expect(lineDiff('x\ny', 'x\ny')).toEqual(['  x', '  y'])
    expect(lineDiff('x', '')).toEqual(['- x'])
  })
})
