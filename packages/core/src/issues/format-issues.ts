export { formatIssues, formatPath } from '@plan/shell/common'
