export type { PathAccess, PathCheckResult, PathDenial, PathScope } from '@plan/shell/common'
