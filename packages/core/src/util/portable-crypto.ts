import { nodeCryptoFor } from './node-crypto-on-demand.js'

// SHA-256 and HMAC-SHA-256, synchronous on every runtime: Node's crypto when it is there (fast;
// loaded on demand, see nodeCryptoFor), else a plain implementation (FIPS 180-4, RFC 2104). The
// tests compare both on generated input.

interface Digest {
  update(data: string | Uint8Array): Digest
  digest(): Uint8Array
  digest(encoding: 'hex'): string
}
interface NodeCrypto {
  createHash(algorithm: 'sha256'): Digest
  createHmac(algorithm: 'sha256', key: Uint8Array): Digest
  /** One-shot digest (Node.js 21.7+): a fraction of a hash object's cost for short texts. */
  hash?(algorithm: 'sha256', data: string, outputEncoding: 'hex'): string
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
])

const rotate = (value: number, bits: number) => (value >>> bits) | (value << (32 - bits))

/** SHA-256 of bytes, in plain code. */
export function sha256Plain(message: Uint8Array): Uint8Array {
  const length = message.length
  const padded = new Uint8Array((((length + 9 + 63) >> 6) << 6) >>> 0)
  padded.set(message)
  padded[length] = 0x80
  const view = new DataView(padded.buffer)
  view.setUint32(padded.length - 8, Math.floor(length / 0x20000000))
  view.setUint32(padded.length - 4, (length << 3) >>> 0)
  const hash = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ])
  const w = new Uint32Array(64)
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let index = 0; index < 16; index += 1) w[index] = view.getUint32(offset + index * 4)
    for (let index = 16; index < 64; index += 1) {
      const a = w[index - 15] as number
      const b = w[index - 2] as number
      const s0 = rotate(a, 7) ^ rotate(a, 18) ^ (a >>> 3)
      const s1 = rotate(b, 17) ^ rotate(b, 19) ^ (b >>> 10)
      w[index] = ((w[index - 16] as number) + s0 + (w[index - 7] as number) + s1) >>> 0
    }
    let [a, b, c, d, e, f, g, h] = hash as unknown as number[]
    for (let index = 0; index < 64; index += 1) {
      const s1 = rotate(e as number, 6) ^ rotate(e as number, 11) ^ rotate(e as number, 25)
      const choice = ((e as number) & (f as number)) ^ (~(e as number) & (g as number))
      const t1 = ((h as number) + s1 + choice + (K[index] as number) + (w[index] as number)) >>> 0
      const s0 = rotate(a as number, 2) ^ rotate(a as number, 13) ^ rotate(a as number, 22)
      const majority =
        ((a as number) & (b as number)) ^
        ((a as number) & (c as number)) ^
        ((b as number) & (c as number))
      const t2 = (s0 + majority) >>> 0
      h = g
      g = f
      f = e
      e = ((d as number) + t1) >>> 0
      d = c
      c = b
      b = a
      a = (t1 + t2) >>> 0
    }
    const next = [a, b, c, d, e, f, g, h] as number[]
    for (let index = 0; index < 8; index += 1)
      hash[index] = ((hash[index] as number) + (next[index] as number)) >>> 0
  }
  const out = new Uint8Array(32)
  const outView = new DataView(out.buffer)
  for (let index = 0; index < 8; index += 1) outView.setUint32(index * 4, hash[index] as number)
  return out
}

/** HMAC-SHA-256 in plain code. */
export function hmacSha256Plain(key: Uint8Array, message: Uint8Array): Uint8Array {
  const block = new Uint8Array(64)
  block.set(key.length > 64 ? sha256Plain(key) : key)
  const inner = new Uint8Array(64 + message.length)
  const outer = new Uint8Array(64 + 32)
  for (let index = 0; index < 64; index += 1) {
    inner[index] = (block[index] as number) ^ 0x36
    outer[index] = (block[index] as number) ^ 0x5c
  }
  inner.set(message, 64)
  outer.set(sha256Plain(inner), 64)
  return sha256Plain(outer)
}

const encoder = new TextEncoder()

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text)
}

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return hex
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
  const crypto = nodeCryptoFor<NodeCrypto>(text.length)
  if (crypto === undefined) return toHex(sha256Plain(utf8(text)))
  return typeof crypto.hash === 'function'
    ? crypto.hash('sha256', text, 'hex')
    : crypto.createHash('sha256').update(text).digest('hex')
}

/** HMAC-SHA-256 of a string's UTF-8 bytes. */
export function hmacSha256(key: Uint8Array, text: string): Uint8Array {
  const crypto = nodeCryptoFor<NodeCrypto>(text.length)
  return crypto === undefined
    ? hmacSha256Plain(key, utf8(text))
    : new Uint8Array(crypto.createHmac('sha256', key).update(text).digest())
}

/** Compares two byte strings in time that depends on their length only. */
export function equalBytes(left: Uint8Array, right: Uint8Array): boolean {
  if (left.length !== right.length) return false
  let difference = 0
  for (let index = 0; index < left.length; index += 1)
    difference |= (left[index] as number) ^ (right[index] as number)
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
      const crypto =
        buffered.length > BUFFERED_TEXT ? nodeCryptoFor<NodeCrypto>(buffered.length) : undefined
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
