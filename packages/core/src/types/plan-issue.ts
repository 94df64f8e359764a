export { type IssueCode, type PlanIssue } from '@plan/shell/common'
