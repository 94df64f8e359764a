export { PolicyError } from '@plan/shell/common'
