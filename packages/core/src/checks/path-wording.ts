export {
  deniedHint,
  outsideHint,
  type ProtectedList,
  placeInList,
  readOnlyHint,
} from '@plan/shell/common'
