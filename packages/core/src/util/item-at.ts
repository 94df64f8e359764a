// Checked array reads live in @plan/shell, which core stands on, once for both packages.
export { int32At, itemAt, numberAt, popped, stringAt, valueAt } from '@plan/shell/common'
