import { nodeBuiltin } from './node-builtin.js'

/** Text length (UTF-16 units) from which one hash is worth loading Node's crypto. */
const NATIVE_FROM_LENGTH = 2048
/** Short hashes done with @noble/hashes before Node's crypto is loaded anyway. */
const PLAIN_HASHES = 16

let loaded = false
let native: unknown
let plainHashes = 0

/**
 * Node's crypto module once a hash is worth loading it, else undefined: the caller then hashes
 * with @noble/hashes (same digest). Loading it costs a new ES-module process about 5 ms, far more
 * than a few short hashes with @noble/hashes, so a cold start that validates one small plan never
 * pays it; a long text, or the 17th hash of a process, loads it for good.
 */
export function nodeCryptoFor<T>(length: number): T | undefined {
  if (!loaded) {
    if (length < NATIVE_FROM_LENGTH && plainHashes < PLAIN_HASHES) {
      plainHashes += 1
      return undefined
    }
    loaded = true
    native = nodeBuiltin<T>('node:crypto')
  }
  return native as T | undefined
}
