export {
  hasUnsafeCharacter,
  hasUnsafeCommandCharacter,
  isUnsafeCodePoint,
  replaceUnsafeCharacters,
  UNSAFE_CHARACTER_CLASS,
} from '@plan/shell/common'
