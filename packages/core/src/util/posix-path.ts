export { posix } from '@plan/shell/common'
