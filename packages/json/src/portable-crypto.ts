import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { type Digest, nodeCryptoFor } from './node-crypto-on-demand.js'

// SHA-256 and HMAC-SHA-256, synchronous on every runtime: Node's crypto when it is there (fast;
// loaded on demand, see nodeCryptoFor), else the audited @noble/hashes. The tests compare both
// on generated input.

/** SHA-256 of bytes, without Node's crypto. */
export function sha256Portable(message: Uint8Array): Uint8Array {
  return sha256(message)
}

/** HMAC-SHA-256, without Node's crypto. */
export function hmacSha256Portable(key: Uint8Array, message: Uint8Array): Uint8Array {
  return hmac(sha256, key, message)
}

const encoder = new TextEncoder()

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text)
}

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  return bytesToHex(bytes)
}

/** Bytes of a hex string (an even number of hex digits; the caller checks the format). */
export function fromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length >> 1)
  for (let index = 0; index < bytes.length; index += 1)
    bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16)
  return bytes
}

/** SHA-256 (hex) of a string's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  const crypto = nodeCryptoFor(text.length)
  if (crypto === undefined) return toHex(sha256Portable(utf8(text)))
  return typeof crypto.hash === 'function'
    ? crypto.hash('sha256', text, 'hex')
    : crypto.createHash('sha256').update(text).digest('hex')
}

/** HMAC-SHA-256 of a string's UTF-8 bytes. */
export function hmacSha256(key: Uint8Array, text: string): Uint8Array {
  const crypto = nodeCryptoFor(text.length)
  return crypto === undefined
    ? hmacSha256Portable(key, utf8(text))
    : new Uint8Array(crypto.createHmac('sha256', key).update(text).digest())
}

/** Compares two byte strings in time that depends on their length only. */
export function equalBytes(left: Uint8Array, right: Uint8Array): boolean {
  if (left.length !== right.length) return false
  let difference = 0
  left.forEach((byte, index) => {
    difference |= byte ^ (right[index] ?? 0)
  })
  return difference === 0
}

/** A SHA-256 fed text piece by piece. */
export interface IncrementalSha256 {
  update(text: string): IncrementalSha256
  /** The lower-case hex digest; the hash cannot be fed afterwards. */
  digestHex(): string
}

/** Text an incremental hash keeps before it starts a streaming hash. */
const BUFFERED_TEXT = 1 << 16

/**
 * An incremental SHA-256 of UTF-8 text: short text is kept and hashed in one call at the end
 * ({@link sha256Hex}); past 64 Ki units, Node's streaming hash takes over where it exists
 * (elsewhere all the text is kept and hashed together at the end; same digest either way).
 */
export function createSha256(): IncrementalSha256 {
  // Kept as one string, not an array of pieces: an index accessor on Array.prototype could
  // drop a piece pushed to an array.
  let buffered = ''
  let hash: Digest | undefined
  const incremental: IncrementalSha256 = {
    update: (text) => {
      if (hash !== undefined) {
        hash.update(text)
        return incremental
      }
      buffered += text
      const crypto = buffered.length > BUFFERED_TEXT ? nodeCryptoFor(buffered.length) : undefined
      if (crypto !== undefined) {
        hash = crypto.createHash('sha256').update(buffered)
        buffered = ''
      }
      return incremental
    },
    digestHex: () => (hash === undefined ? sha256Hex(buffered) : hash.digest('hex')),
  }
  return incremental
}
