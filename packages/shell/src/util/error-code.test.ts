import { describe, expect, it } from 'vitest'
import { errorCode } from './error-code.js'

describe('errorCode', () => {
  it('should give the string code of a system error and undefined for anything else', () => {
    expect(errorCode(Object.assign(new Error('gone'), { code: 'ENOENT' }))).toBe('ENOENT')
    expect(errorCode(Object.assign(new Error('odd'), { code: 42 }))).toBeUndefined()
    expect(errorCode(new Error('plain'))).toBeUndefined()
    expect(errorCode('ENOENT')).toBeUndefined()
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    expect(errorCode(proxy)).toBeUndefined()
  })
})
