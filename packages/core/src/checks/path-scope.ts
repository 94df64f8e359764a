export {
  checkPathLexical,
  checkPathSlowly,
  describe,
  findPathDenial,
  isWithin,
  MAX_PATH_LENGTH,
  resolvePath,
} from '@plan/shell/common'
