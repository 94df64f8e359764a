import { afterEach, describe, expect, it, vi } from 'vitest'
import { postgresTestUrl } from './postgres-url.js'

describe('postgresTestUrl', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
    vi.restoreAllMocks()
  })

  it('should fail under CI=true when no server is set, so CI never skips the PostgreSQL tests', () => {
    vi.stubEnv('PLAN_TEST_PG_URL', '')
    vi.stubEnv('CI', 'true')
    expect(() => postgresTestUrl()).toThrow('PLAN_TEST_PG_URL is not set')
  })

  it('should skip outside CI with a message that says why', () => {
    vi.stubEnv('PLAN_TEST_PG_URL', '')
    vi.stubEnv('CI', '')
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(postgresTestUrl()).toBeUndefined()
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('skipping the PostgreSQL tests'))
  })

  it('should give the URL when one is set', () => {
    vi.stubEnv('PLAN_TEST_PG_URL', 'postgres://localhost:5432/plan')
    vi.stubEnv('CI', 'true')
    expect(postgresTestUrl()).toBe('postgres://localhost:5432/plan')
  })
})
