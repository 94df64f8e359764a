import { describe, expect, it } from 'vitest'
import { invocationDir } from './invocation-dir.js'

describe('invocationDir', () => {
  it('should use INIT_CWD while a package script stands in its package folder', () => {
    const env = { INIT_CWD: '/repo/sub', npm_package_json: '/repo/package.json' }
    expect(invocationDir('/repo', env)).toBe('/repo/sub')
  })

  it('should keep the process folder outside package scripts or after a cd', () => {
    expect(invocationDir('/here', {})).toBe('/here')
    expect(invocationDir('/here', { INIT_CWD: '/elsewhere' })).toBe('/here')
    const env = { INIT_CWD: '/repo', npm_package_json: '/repo/package.json' }
    expect(invocationDir('/repo/tools', env)).toBe('/repo/tools')
  })
})
