export type { CommandCheckResult } from '@plan/shell/common'
