export { errorCode } from '@plan/shell/common'
