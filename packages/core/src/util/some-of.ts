export { someOf } from '@plan/shell/common'
