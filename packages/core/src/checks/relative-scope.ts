export {
  isUnderAny,
  isWithinRelative,
  type RelativeEntries,
  type RelativeScope,
  relativeScope,
} from '@plan/shell/common'
