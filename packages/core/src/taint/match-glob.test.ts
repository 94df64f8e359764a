import { describe, expect, it } from 'vitest'
import { matchesGlob } from './match-glob.js'

describe('matchesGlob', () => {
  it('should match files under a ** folder and files named by * in one segment', () => {
    expect(matchesGlob('src/a/b.js', 'src/**')).toBe(true)
    expect(matchesGlob('src/b.js', 'src/*.js')).toBe(true)
    expect(matchesGlob('.env', '**/.env')).toBe(true)
    expect(matchesGlob('a/b/.env.local', '**/.env.*')).toBe(true)
  })

  it('should not match across segments with *, or names that only share a prefix', () => {
    expect(matchesGlob('src/a/b.js', 'src/*.js')).toBe(false)
    expect(matchesGlob('srcevil/x.js', 'src/**')).toBe(false)
    expect(matchesGlob('package.json', 'src/**')).toBe(false)
    expect(matchesGlob('a/js', 'a?js')).toBe(false)
  })
})
