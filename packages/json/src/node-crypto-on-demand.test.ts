import { afterEach, describe, expect, it, vi } from 'vitest'

type Load = typeof import('./node-crypto-on-demand.js')

/** A fresh copy of the module (its load state starts over) and a spy on built-in loads. */
async function fresh() {
  vi.resetModules()
  const loads = vi.spyOn(process, 'getBuiltinModule')
  const { nodeCryptoFor }: Load = await import('./node-crypto-on-demand.js')
  const cryptoLoads = () => loads.mock.calls.filter(([name]) => name === 'node:crypto').length
  return { nodeCryptoFor, cryptoLoads }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('nodeCryptoFor', () => {
  it('should leave short hashes to @noble/hashes without loading node:crypto', async () => {
    const { nodeCryptoFor, cryptoLoads } = await fresh()
    expect(nodeCryptoFor(10)).toBeUndefined()
    expect(nodeCryptoFor(2047)).toBeUndefined()
    expect(cryptoLoads()).toBe(0)
  })

  it('should load node:crypto for a long text, and keep it for every later hash', async () => {
    const { nodeCryptoFor, cryptoLoads } = await fresh()
    const crypto = nodeCryptoFor(4096)
    expect(typeof crypto?.createHash).toBe('function')
    expect(nodeCryptoFor(1)).toBe(crypto)
    expect(cryptoLoads()).toBe(1)
  })

  it('should load node:crypto after 16 short hashes', async () => {
    const { nodeCryptoFor } = await fresh()
    for (let index = 0; index < 16; index += 1) expect(nodeCryptoFor(8)).toBeUndefined()
    expect(nodeCryptoFor(8)).toBeDefined()
  })
})
