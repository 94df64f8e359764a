import { describe, expect, it } from 'vitest'
import { errorMessage } from './error-message.js'

describe('errorMessage', () => {
  it('should give the message of an error and the text of anything else thrown', () => {
    expect(errorMessage(new TypeError('bad input'))).toBe('bad input')
    expect(errorMessage('plain text')).toBe('plain text')
    expect(errorMessage(42)).toBe('42')
    expect(errorMessage(undefined)).toBe('undefined')
    expect(errorMessage(Symbol('thrown'))).toBe('Symbol(thrown)')
  })

  it('should cut a long message and mark the cut', () => {
    expect(errorMessage(new Error('x'.repeat(300)), 200)).toBe(`${'x'.repeat(200)}…`)
    expect(errorMessage('short', 200)).toBe('short')
  })

  it('should never throw on a hostile value', () => {
    const getter = new Error('hidden')
    Object.defineProperty(getter, 'message', {
      get() {
        throw new Error('no')
      },
    })
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    const printer = {
      toString() {
        throw new Error('no')
      },
    }
    for (const thrown of [getter, proxy, printer, Object.create(null)])
      expect(errorMessage(thrown)).toBe('a value that cannot be read')
  })
})
