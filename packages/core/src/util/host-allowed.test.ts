import { describe, expect, it } from 'vitest'
import { hostAllowed } from './host-allowed.js'

describe('hostAllowed', () => {
  it('should allow a listed host and the subdomains of a wildcard entry', () => {
    expect(hostAllowed('api.example.com', ['api.example.com'])).toBe(true)
    expect(hostAllowed('API.Example.com.', ['api.example.com'])).toBe(true)
    expect(hostAllowed('a.b.example.com', ['*.example.com'])).toBe(true)
  })

  it('should refuse other hosts, look-alikes and the bare wildcard parent', () => {
    expect(hostAllowed('example.com', ['*.example.com'])).toBe(false)
    expect(hostAllowed('evilexample.com', ['*.example.com'])).toBe(false)
    expect(hostAllowed('api.example.com.evil.net', ['api.example.com'])).toBe(false)
    expect(hostAllowed('', ['*.example.com'])).toBe(false)
    expect(hostAllowed('example.com', [])).toBe(false)
    expect(hostAllowed('.example.com', ['*.example.com'])).toBe(false)
    expect(hostAllowed('.', ['*.example.com', '.'])).toBe(false)
  })
})
