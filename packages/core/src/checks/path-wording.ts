export { deniedHint, outsideHint, placeInList, type ProtectedList, readOnlyHint } from '@plan/shell/common'
