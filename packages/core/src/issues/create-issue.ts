export { createIssue } from '@plan/shell/common'
