import { describe, expect, it } from 'vitest'
import {
  collectPathCandidates,
  MAX_CLUSTER_VALUES,
  unwrapValue,
} from './collect-path-candidates.js'

const values = (name: string, args: string[]) =>
  collectPathCandidates(name, args, new Set(), ['.env', 'vendor']).candidates.map(
    (candidate) => `${candidate.role}:${candidate.value}`,
  )

describe('unwrapValue', () => {
  it('should find the path behind @, file: URLs in every spelling and socat addresses', () => {
    expect(unwrapValue('@/etc/x')).toContain('/etc/x')
    expect(unwrapValue('file:/etc/x')).toContain('/etc/x')
    expect(unwrapValue('FILE://localhost/etc/x')).toContain('/etc/x')
    expect(unwrapValue('file:///etc/x')).toContain('/etc/x')
    expect(unwrapValue('open:/etc/x,creat')).toContain('/etc/x')
    expect(unwrapValue('x=@.env;type=text/plain')).toContain('.env')
    expect(unwrapValue('key=.env')).toContain('.env')
  })
})

describe('collectPathCandidates', () => {
  it('should give write roles to output options in every spelling', () => {
    expect(values('curl', ['--output', 'o', 'u'])).toContain('write:o')
    expect(values('curl', ['--output=o'])).toContain('write:o')
    expect(values('curl', ['-oo2'])).toContain('write:o2')
    expect(values('sort', ['-o=o3', 'in'])).toContain('write:o3')
    expect(values('dd', ['if=a', 'of=b'])).toEqual(expect.arrayContaining(['read:a', 'write:b']))
    expect(values('cp', ['-t', 'dir', 'a'])).toContain('write:dir')
    expect(values('uniq', ['in', 'out'])).toEqual(['read:in', 'write:out'])
    expect(values('mv', ['a', 'b', 'c'])).toEqual(['write:a', 'write:b', 'write:c'])
    expect(values('cp', ['a', 'b', 'c'])).toEqual(['read:a', 'read:b', 'write:c'])
    expect(values('curl', ['--out', 'o'])).toContain('write:o')
    expect(values('tar', ['cf', 'out.tar', 'src'])).toEqual(['write:out.tar', 'read:src'])
    expect(values('git', ['show', 'HEAD:.env'])).toContain('read:.env')
    expect(values('git', ['checkout', '-m', 'vendor/x'])).toContain('write:vendor/x')
    expect(values('git', ['commit', '-m', 'see vendor/x'])).toContain('inert:see vendor/x')
    expect(values('curl', ['-Oo', 'vendor/x', 'https://example.com'])).toContain('write:vendor/x')
    expect(values('tar', ['-C', 'dir', '-xf', 'a.tar'])).toContain('write:dir')
    expect(values('unzip', ['-d', 'dir', 'a.zip'])).toContain('write:dir')
    expect(values('gcc', ['-o', 'bin', 'a.c'])).toContain('write:bin')
    expect(values('pytest', ['--basetemp=t'])).toContain('write:t')
    expect(values('gzip', ['a'])).toEqual(['write:a'])
    expect(values('gzip', ['-c', 'a'])).toEqual(['read:a'])
  })

  it('should not stop short-option splitting at = and follow protected names in clusters', () => {
    expect(values('unknown', ['-oG=/etc/x'])).toContain('unknown:/etc/x')
    expect(values('unknown', ['-xvendor/lib'])).toContain('unknown:vendor/lib')
    expect(values('unknown', ['-l.env'])).toContain('unknown:.env')
  })

  it('should read the words of a multi-word value', () => {
    const found = collectPathCandidates('ssh', ['-o', 'Include /etc/x', 'host'], new Set(), [])
    expect(
      found.candidates.some((candidate) => candidate.value === '/etc/x' && candidate.embedded),
    ).toBe(true)
  })

  it('should try a bounded number of values per cluster, so a long word costs linear time', () => {
    const long = `-${'a'.repeat(100_000)}`
    expect(collectPathCandidates('unknown', [long], new Set(), ['.env']).candidates).toEqual([])
    const slashes = `-${'/'.repeat(1_000)}`
    expect(collectPathCandidates('unknown', [slashes], new Set(), []).unreadable).toEqual([slashes])
    const few = `-a${'/x'.repeat(MAX_CLUSTER_VALUES - 1)}`
    expect(collectPathCandidates('unknown', [few], new Set(), []).unreadable).toEqual([])
  })
})
