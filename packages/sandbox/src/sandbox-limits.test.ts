import { describe, expect, it } from 'vitest'
import { limitViolations } from './limit-violations.js'
import { SandboxError } from './sandbox-error.js'
import { checkLimits, DEFAULT_LIMITS, effectiveLimits, prlimitOptions } from './sandbox-limits.js'

describe('effectiveLimits', () => {
  it('should apply the defaults when nobody sets a limit', () => {
    expect(effectiveLimits(undefined, undefined, undefined)).toEqual(DEFAULT_LIMITS)
    expect(DEFAULT_LIMITS).toEqual({
      fileSizeBytes: 1024 ** 3,
      openFiles: 4096,
      tmpBytes: 1024 ** 3,
      diskBytes: 8 * 1024 ** 3,
    })
  })

  it("should let the caller replace a default or a limit the policy leaves out, run's over the sandbox's", () => {
    expect(
      effectiveLimits(
        undefined,
        { fileSizeBytes: 10, cpuSeconds: 5 },
        { fileSizeBytes: 20, processes: 30 },
      ),
    ).toEqual({ ...DEFAULT_LIMITS, cpuSeconds: 5, fileSizeBytes: 20, processes: 30 })
  })

  it("should keep the policy's limits as ceilings the caller can lower but not raise", () => {
    const policy = { cpuSeconds: 10, openFiles: 100, memoryBytes: 1 << 30 }
    expect(
      effectiveLimits(policy, { cpuSeconds: 50, openFiles: 50 }, { memoryBytes: 2 ** 40 }),
    ).toEqual({ ...DEFAULT_LIMITS, cpuSeconds: 10, openFiles: 50, memoryBytes: 1 << 30 })
    expect(effectiveLimits(policy, undefined, { openFiles: 1000 }).openFiles).toBe(100)
  })
})

describe('checkLimits', () => {
  it('should accept positive integers of known limits', () => {
    expect(() => checkLimits(undefined, ['limits'])).not.toThrow()
    expect(() => checkLimits({ cpuSeconds: 1, openFiles: 64 }, ['limits'])).not.toThrow()
  })

  it.each([
    [{ cpuSeconds: 0 }, ['limits', 'cpuSeconds']],
    [{ openFiles: 1.5 }, ['limits', 'openFiles']],
    [{ memoryBytes: Number.NaN }, ['limits', 'memoryBytes']],
    [{ processes: '8' }, ['limits', 'processes']],
    [{ cpu: 1 }, ['limits', 'cpu']],
    ['4096', ['limits']],
  ])('should refuse %j with invalid_configuration at its path', (limits, path) => {
    let caught: unknown
    try {
      checkLimits(limits, ['limits'])
    } catch (error) {
      caught = error
    }
    expect(SandboxError.isInstance(caught)).toBe(true)
    expect((caught as SandboxError).issues[0]).toMatchObject({
      code: 'invalid_configuration',
      path,
    })
  })
})

describe('prlimitOptions', () => {
  it('should set soft and hard limits alike, with SIGXCPU a second before SIGKILL', () => {
    expect(
      prlimitOptions({
        cpuSeconds: 2,
        fileSizeBytes: 1000,
        openFiles: 64,
        processes: 50,
        memoryBytes: 1 << 30,
        tmpBytes: 4096,
      }),
    ).toEqual([
      '--cpu=2:3',
      '--fsize=1000:1000',
      '--nofile=64:64',
      '--nproc=50:50',
      `--data=${1 << 30}:${1 << 30}`,
    ])
    expect(prlimitOptions({})).toEqual([])
  })

  it("should cap a limit at this process's own hard limit", () => {
    const [option] = prlimitOptions({ openFiles: Number.MAX_SAFE_INTEGER })
    const hard = Number(option?.split(':')[1])
    expect(hard).toBeLessThan(Number.MAX_SAFE_INTEGER)
    expect(option).toBe(`--nofile=${hard}:${hard}`)
  })
})

describe('limitViolations', () => {
  const limits = { cpuSeconds: 1, fileSizeBytes: 1000, openFiles: 64 }

  it('should name the limit behind a SIGXCPU or SIGXFSZ exit, once', () => {
    expect(limitViolations(152, 'CPU time limit exceeded\n', limits)).toEqual([
      expect.objectContaining({ kind: 'limit', target: 'cpuSeconds' }),
    ])
    expect(limitViolations(153, '', limits)).toEqual([
      expect.objectContaining({ kind: 'limit', target: 'fileSizeBytes' }),
    ])
  })

  it('should read the errors of limits that were set from stderr, and nothing else', () => {
    const stderr = [
      "head: error writing 'standard output': File too large",
      'node: Too many open files',
      'sh: 0: Cannot fork',
      'all good',
    ].join('\n')
    expect(limitViolations(1, stderr, limits).map((violation) => violation.target)).toEqual([
      'fileSizeBytes',
      'openFiles',
    ])
    expect(limitViolations(152, 'CPU time limit exceeded', {})).toEqual([])
    expect(
      limitViolations(1, 'head: error writing: No space left on device', { tmpBytes: 1 }),
    ).toEqual([expect.objectContaining({ kind: 'limit', target: 'tmpBytes' })])
    expect(limitViolations(0, 'all good\n', limits)).toEqual([])
  })
})
