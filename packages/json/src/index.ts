export { canonicalJson, prototypesHaveToJson } from './canonical-json.js'
export { defineValue } from './define-value.js'
export { isForbiddenKey } from './forbidden-key.js'
export { hasOwnKey } from './has-own-key.js'
export { hashJson, hashJsonOrNull } from './hash-json.js'
export { isPlainObject } from './is-plain-object.js'
export type { IncrementalSha256 } from './portable-crypto.js'
export {
  createSha256,
  equalBytes,
  fromHex,
  hmacSha256,
  sha256Hex,
  toHex,
  utf8,
} from './portable-crypto.js'
export type { JsonSchema, SchemaMatch, SchemaMismatch } from './read-json-schema.js'
export { matchJsonSchema, readJsonSchema } from './read-json-schema.js'
export { rfc8785Json } from './rfc8785-json.js'
