export { type PathAccess, type PathCheckResult, type PathDenial, type PathScope } from '@plan/shell/common'
