/** Text length (UTF-16 units) from which one hash is worth loading Node's crypto. */
const NATIVE_FROM_LENGTH = 2048
/** Short hashes done with @noble/hashes before Node's crypto is loaded anyway. */
const PLAIN_HASHES = 16

/** A hash or HMAC object of `node:crypto`. */
export interface Digest {
  update(data: string | Uint8Array): Digest
  digest(): Uint8Array
  digest(encoding: 'hex'): string
}

/** The part of `node:crypto` the portable hashes use. */
export interface NodeCrypto {
  createHash(algorithm: 'sha256'): Digest
  createHmac(algorithm: 'sha256', key: Uint8Array): Digest
  /** One-shot digest (Node.js 21.7+): a fraction of a hash object's cost for short texts. */
  hash?(algorithm: 'sha256', data: string, outputEncoding: 'hex'): string
}

/** What this module reads of `globalThis.process`, which runtimes other than Node.js may lack. */
interface HostProcess {
  readonly getBuiltinModule?: (id: 'node:crypto') => NodeCrypto | undefined
}

/** `node:crypto` where the runtime has `process.getBuiltinModule` (Node.js 22.3+, Bun, Deno). */
function loadNodeCrypto(): NodeCrypto | undefined {
  const host: { readonly process?: HostProcess } = globalThis
  return host.process?.getBuiltinModule?.('node:crypto')
}

let loaded = false
let native: NodeCrypto | undefined
let plainHashes = 0

/**
 * Node's crypto module once a hash is worth loading it, else undefined: the caller then hashes
 * with @noble/hashes (same digest). Loading it costs a new ES-module process about 5 ms, far more
 * than a few short hashes with @noble/hashes, so a cold start that validates one small plan never
 * pays it; a long text, or the 17th hash of a process, loads it for good.
 */
export function nodeCryptoFor(length: number): NodeCrypto | undefined {
  if (!loaded) {
    if (length < NATIVE_FROM_LENGTH && plainHashes < PLAIN_HASHES) {
      plainHashes += 1
      return undefined
    }
    loaded = true
    native = loadNodeCrypto()
  }
  return native
}
