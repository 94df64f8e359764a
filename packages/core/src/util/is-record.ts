// The record test lives in @plan/shell, which core and the packages beside it stand on, once.
export { isRecord } from '@plan/shell/common'
