export {
  canonicalJson,
  hashJson,
  hashJsonOrNull,
  prototypesHaveToJson,
  sha256Hex as sha256,
} from '@plan/json'
