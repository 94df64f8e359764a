export type { IssueCode, PlanIssue } from '@plan/shell/common'
